package dev.arenascope.app.ui.common;

/** The CSS style classes and ids the app's stylesheets target; views use these constants only. */
public final class Styles {
    private Styles() {}

    public static final String ROOT = "arenascope";
    public static final String DARK = "theme-dark";
    public static final String TIMELINE = "timeline";
    public static final String HOVER_CARD = "hover-card";
    public static final String VIEW_TITLE = "view-title";
    public static final String TOOLBAR_SPACER = "toolbar-spacer";
    public static final String EMPTY_HINT = "empty-hint";
    public static final String FIGURE = "figure";
    public static final String FIGURE_LABEL = "figure-label";
    public static final String FIGURE_VALUE = "figure-value";
    public static final String LIVE_BADGE = "live-badge";
    /** The toolbar and its badges, one row. */
    public static final String TOOLBAR_ROW = "toolbar-row";
    /** The badges beside the toolbar (LIVE, LISTENING), kept out of its overflow menu. */
    public static final String TOOLBAR_BADGES = "toolbar-badges";
    public static final String SEARCH_FIELD = "search-field";
    public static final String ERROR_TEXT = "error-text";
    public static final String SIDE_PANEL = "side-panel";
    public static final String NUMERIC = "numeric";
    public static final String DAMAGE_BANNER = "damage-banner";
    public static final String STRIPE_LEGEND = "stripe-legend";
    public static final String STRIPE_CHIP = "stripe-chip";

    public static final String LIGHT_CSS = "/dev/arenascope/app/ui/arenascope-light.css";
    public static final String DARK_CSS = "/dev/arenascope/app/ui/arenascope-dark.css";
    public static final String BASE_CSS = "/dev/arenascope/app/ui/arenascope.css";
}
