package dev.arenascope.app.cli;

/** Bad command-line usage or bad input: printed as one line, exit code 2. */
public class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
