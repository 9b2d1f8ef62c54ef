package dev.arenascope.app.ui.common;

import java.util.function.Function;

import javafx.util.StringConverter;

/**
 * The converter of a chooser whose items are shown, never typed: each item by {@code name}, no item
 * (the chooser's "all"/"any" choice) as {@code none}. Typed text is not read back ({@code fromString}
 * gives null), so such a chooser must not be editable.
 */
public final class ShownAs {
    private ShownAs() {}

    /** A converter showing an item by {@code name} and null as {@code none}. */
    public static <T> StringConverter<T> converter(String none, Function<? super T, String> name) {
        return new StringConverter<>() {
            @Override
            public String toString(T item) {
                return item == null ? none : name.apply(item);
            }

            @Override
            public T fromString(String text) {
                return null;
            }
        };
    }
}
