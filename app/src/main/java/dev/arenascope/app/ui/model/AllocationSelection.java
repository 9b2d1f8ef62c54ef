package dev.arenascope.app.ui.model;

/**
 * One allocation the user picked (a click on its stripe): enough to find it again in the trace, its
 * rows in the Events table and its site. Immutable.
 *
 * @param memory     the memory's id
 * @param allocation its number in the memory's {@link dev.arenascope.core.analysis.Allocations}
 * @param allocEvent the trace's event index of the allocation
 * @param freeEvent  the trace's event index of what freed it, -1 when never freed
 * @param bytes      its bytes
 * @param startNs    when it was made, ns since the session start
 * @param endNs      when it was freed, {@link dev.arenascope.core.analysis.Allocations#NEVER} when never
 * @param site       its site, as the site analysis groups it (internal frames hidden)
 */
public record AllocationSelection(int memory, int allocation, long allocEvent, long freeEvent, long bytes,
                                  long startNs, long endNs, SiteSelection site) {}
