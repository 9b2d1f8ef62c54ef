package dev.arenascope.core.archcheck;

import javafx.beans.property.SimpleIntegerProperty;

/** A deliberate offender for {@code ArchitectureTest#aBrokenRuleFailsTheCheck}: a "core" class using JavaFX. Test code only. */
public final class ImportsJavaFx {
    private ImportsJavaFx() {}

    public static int value() {
        return new SimpleIntegerProperty(1).get();
    }
}
