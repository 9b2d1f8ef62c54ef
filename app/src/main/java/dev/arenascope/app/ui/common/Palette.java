package dev.arenascope.app.ui.common;

import javafx.scene.paint.Color;

/** The colours canvas views paint with, one set per theme. */
public record Palette(Color background, Color laneBackground, Color grid, Color text, Color mutedText,
                      Color forward, Color forwardEnvelope, Color backward, Color backwardEnvelope,
                      Color reserved, Color capacity, Color highWater, Color selection, Color cursor,
                      Color highlight, Color oom, Color reset, Color marker, Color loss, Color baseline,
                      Color labelBackground) {

    public static final Palette LIGHT = new Palette(
            Color.web("#fafbfc"), Color.web("#ffffff"), Color.web("#e3e7ec"), Color.web("#1f2933"), Color.web("#66727f"),
            Color.web("#2f7ed8"), Color.web("#9cc3f0"), Color.web("#d9822b"), Color.web("#f0c190"),
            Color.web("#cfd8e3"), Color.web("#3d4852"), Color.web("#d63b3b"), Color.web("#2f7ed8", 0.16), Color.web("#c0392b"),
            Color.web("#f5b400", 0.45), Color.web("#d63b3b"), Color.web("#e67e22"), Color.web("#6c5ce7"), Color.web("#8e44ad"),
            Color.web("#333333"), Color.web("#ffffff", 0.85));

    public static final Palette DARK = new Palette(
            Color.web("#1b1e23"), Color.web("#22262c"), Color.web("#343a42"), Color.web("#e6e9ed"), Color.web("#9aa4af"),
            Color.web("#4c9df0"), Color.web("#2b5b8f"), Color.web("#f0a04b"), Color.web("#8a5a2a"),
            Color.web("#3b4450"), Color.web("#c9d1d9"), Color.web("#ff6b6b"), Color.web("#4c9df0", 0.22), Color.web("#ff7b72"),
            Color.web("#ffd33d", 0.30), Color.web("#ff6b6b"), Color.web("#ffa657"), Color.web("#a29bfe"), Color.web("#d2a8ff"),
            Color.web("#e6e9ed"), Color.web("#22262c", 0.85));

    /** A stable colour for a scope name (same name, same colour, in every view). */
    public static Color scopeColor(String name, boolean dark) {
        int h = name == null ? 0 : name.hashCode();
        double hue = Math.floorMod(h * 0x9E3779B1, 360);
        return Color.hsb(hue, dark ? 0.45 : 0.38, dark ? 0.62 : 0.93);
    }

    /** The colour of a plan tensor's role. */
    public static Color roleColor(int role, boolean dark) {
        return switch (role) {
            case 0 -> dark ? Color.web("#3f7fbf") : Color.web("#8fbce6");
            case 1 -> dark ? Color.web("#3f9f6f") : Color.web("#94d3ac");
            case 2 -> dark ? Color.web("#8f6fbf") : Color.web("#c3b1e1");
            case 3 -> dark ? Color.web("#bf8f3f") : Color.web("#f3c98b");
            default -> Color.GRAY;
        };
    }
}
