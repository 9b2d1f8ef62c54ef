package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Labeled;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;

import org.junit.jupiter.api.Test;

import dev.arenascope.testsupport.Fixtures;

/**
 * Every text the window's own controls show (buttons, labels, tabs, menus) is drawn with glyphs the fonts a
 * desktop carries have: no pictographs, no full-width forms. The zoom buttons' full-width plus and minus
 * (U+FF0B, U+FF0D) showed as empty boxes on a machine without CJK fonts.
 */
class GlyphsTest extends WindowTestBase {

    /**
     * Below the CJK blocks: Latin, Greek, Cyrillic, punctuation, arrows, maths operators, geometric shapes (the
     * LISTENING badge's dot, the site filter's cross), what DejaVu and the system UI fonts carry. From U+2E80 on
     * (CJK, the full-width forms, emoji) a desktop without CJK or emoji fonts draws boxes.
     */
    static boolean common(int c) {
        return c < 0x2E80;
    }

    @Test
    void everyControlTextUsesGlyphsCommonFontsHave() {
        openUntilLoaded(Fixtures.torch("cs336-a2-magma27.pickle"));
        // each tab shown in turn: only the shown tab's view is in the window
        Set<String> bad = new LinkedHashSet<>();
        int tabs = fx(() -> window.tabs().getTabs().size());
        for (int i = 0; i < tabs; i++) {
            int tab = i;
            bad.addAll(fx(() -> {
                window.tabs().getSelectionModel().select(tab);
                List<String> out = new ArrayList<>();
                walk(window.scene().getRoot(), out);
                return out;
            }));
        }
        assertEquals(Set.of(), bad, "texts with a glyph common fonts lack");
    }

    private static void walk(Node n, List<String> out) {
        if (n instanceof Labeled l) {
            check(l.getText(), l.getId() == null ? l.getClass().getSimpleName() : "#" + l.getId(), out);
        }
        if (n instanceof MenuBar bar) {
            for (Menu m : bar.getMenus()) {
                menu(m, out);
            }
        }
        if (n instanceof TabPane tp) {
            for (Tab t : tp.getTabs()) {
                check(t.getText(), "tab " + t.getId(), out);
                if (t.getContent() != null) {
                    walk(t.getContent(), out);
                }
            }
        }
        if (n instanceof Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                walk(c, out);
            }
        }
    }

    private static void menu(MenuItem item, List<String> out) {
        check(item.getText(), "menu item " + item.getText(), out);
        if (item instanceof Menu m) {
            for (MenuItem i : m.getItems()) {
                menu(i, out);
            }
        }
    }

    private static void check(String text, String where, List<String> out) {
        if (text != null && !text.codePoints().allMatch(GlyphsTest::common)) {
            out.add(where + ": " + text);
        }
    }
}
