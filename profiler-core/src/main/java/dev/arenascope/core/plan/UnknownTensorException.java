package dev.arenascope.core.plan;

import java.util.NoSuchElementException;

/** Thrown when a plan is asked about a tensor id it does not hold; the message names the id. */
public final class UnknownTensorException extends NoSuchElementException {
    private final String tensorId;

    public UnknownTensorException(String tensorId, String planName) {
        super("unknown tensor '" + tensorId + "' in plan '" + planName + "'");
        this.tensorId = tensorId;
    }

    /** The id that was asked for. */
    public String tensorId() {
        return tensorId;
    }
}
