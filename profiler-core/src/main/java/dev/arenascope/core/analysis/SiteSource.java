package dev.arenascope.core.analysis;

/** Where the sites of a {@link SiteBreakdown} come from. */
public enum SiteSource {
    /** Call stacks recorded or imported with the allocations (all of them, or some: see the breakdown's counts). */
    STACKS,
    /** No allocation carries a stack: each one's site is its chain of open scopes, outermost first. */
    SCOPES,
    /** Neither stacks nor scopes: every allocation falls under one site with no frames. */
    NONE
}
