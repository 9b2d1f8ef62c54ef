package dev.arenascope.app.ui.model;

/**
 * One tensor of a memory plan as the slot map draws it: a rectangle from {@code firstStep} to
 * {@code lastStep} (inclusive) and from {@code offset} to {@code offset + bytes}.
 *
 * @param memory  the plan arena it lives in
 * @param id      tensor name
 * @param offset  byte offset in the arena
 * @param bytes   size in bytes
 * @param role    scratch, persistent, constant cold, constant staged (see {@link #roleName})
 * @param firstStep first step it is live
 * @param lastStep  last step it is live
 */
public record TensorSlot(int memory, String id, long offset, long bytes, int role, int firstStep, int lastStep) {
    public static final String[] ROLES = {"scratch", "persistent", "constant cold", "constant staged"};

    public String roleName() {
        return role >= 0 && role < ROLES.length ? ROLES[role] : "role " + role;
    }

    public long end() {
        return offset + bytes;
    }
}
