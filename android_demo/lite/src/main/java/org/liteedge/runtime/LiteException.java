package org.liteedge.runtime;

/**
 * A failure reported by the runtime: the model could not be loaded, an input shape does not fit the
 * graph, an op failed at prepare time, and so on. The message is the runtime's own (it names the
 * tensor, op or file concerned); {@link #status()} says which kind of failure it was.
 *
 * <p>Mistakes made on the Java side (a null argument, an index out of range, an array of the wrong
 * type or shape) raise {@link IllegalArgumentException}; calls on a closed interpreter raise
 * {@link IllegalStateException}.
 */
public class LiteException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  public LiteException(Status status, String message) {
    super(message);
    this.status = status;
  }

  /** Called from the JNI glue with the C API's numeric status. */
  LiteException(int statusCode, String message) {
    this(Status.fromCode(statusCode), message);
  }

  /** The C API's status of the failed call. */
  public Status status() {
    return status;
  }
}
