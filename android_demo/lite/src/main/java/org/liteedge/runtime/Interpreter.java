package org.liteedge.runtime;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one {@code .lite} model, with the methods Android developers know from LiteRT's
 * {@code org.tensorflow.lite.Interpreter}.
 *
 * <pre>{@code
 * try (Interpreter interpreter = new Interpreter(new File(dir, "rec.lite"),
 *          new Interpreter.Options().setNumThreads(2))) {
 *   float[][][][] image = new float[1][3][48][320];
 *   float[][][] probabilities = new float[1][40][6625];
 *   interpreter.run(image, probabilities);
 * }
 * }</pre>
 *
 * <p><b>Data.</b> Inputs and outputs are primitive Java arrays of the tensor's shape (copied once,
 * straight into or out of the runtime's memory; an input array of another shape resizes the input
 * first) or {@link java.nio.Buffer}s in native byte order (a direct buffer is read or written in
 * place by the runtime, with no Java-side copy; an output buffer's position advances past the data
 * written, so {@code rewind()} it before reading). See {@link DataType#javaType()} for which Java
 * type holds which tensor type.
 *
 * <p><b>Threads.</b> An interpreter is not meant to be shared: create one per thread (several may
 * share nothing but the model file). Its methods are synchronized, so a second thread waits rather
 * than corrupting the native state, and {@link #close()} cannot free memory under a running
 * inference. For parallelism inside one inference use {@link Options#setNumThreads}.
 *
 * <p><b>Lifetime.</b> Call {@link #close()} (or use try-with-resources): the native memory is not
 * freed by the garbage collector. A {@link ByteBuffer} model given as a direct buffer (such as a
 * {@link MappedByteBuffer}) is read in place and must not change until the interpreter is closed.
 *
 * <p><b>Errors.</b> {@link LiteException} carries the runtime's message and {@link Status}; Java
 * misuse raises {@link IllegalArgumentException}; any call after {@code close()} raises
 * {@link IllegalStateException}.
 */
public final class Interpreter implements AutoCloseable {
  /** The default of {@link Options#setMaxMemoryBytes}: 1 GiB, as the C API's. */
  public static final long DEFAULT_MAX_MEMORY_BYTES = 1L << 30;

  /** Interpreter settings; each setter returns this object so calls chain. */
  public static final class Options {
    private int numThreads = 1;
    private CpuAffinity cpuAffinity = CpuAffinity.NONE;
    private Backend backend = Backend.CPU;
    private Precision precision = Precision.FP32;
    private File cacheDir;
    private Tuning tuning = Tuning.NONE;
    private long maxMemoryBytes = DEFAULT_MAX_MEMORY_BYTES;
    private float packedWeightRatio = Float.POSITIVE_INFINITY;

    /** Threads for one inference, >= 1 (default 1); -1 also means the default, as in LiteRT. */
    public Options setNumThreads(int numThreads) {
      if (numThreads == -1) {
        numThreads = 1;
      }
      if (numThreads < 1) {
        throw new IllegalArgumentException("numThreads must be >= 1 (or -1 for the default), got " + numThreads);
      }
      this.numThreads = numThreads;
      return this;
    }

    public int getNumThreads() {
      return numThreads;
    }

    /** Where the threads run (default {@link CpuAffinity#NONE}). */
    public Options setCpuAffinity(CpuAffinity cpuAffinity) {
      if (cpuAffinity == null) {
        throw new IllegalArgumentException("cpuAffinity is null");
      }
      this.cpuAffinity = cpuAffinity;
      return this;
    }

    public CpuAffinity getCpuAffinity() {
      return cpuAffinity;
    }

    /**
     * "cpu" (default), "opencl" or "auto" (OpenCL where the device has a usable OpenCL GPU, else the
     * CPU). Asking for "opencl" where it is not available makes the interpreter's constructor fail
     * with {@link Status#UNSUPPORTED} and the reason.
     */
    public Options setBackend(String name) {
      this.backend = Backend.fromName(name);
      return this;
    }

    public Options setBackend(Backend backend) {
      if (backend == null) {
        throw new IllegalArgumentException("backend is null");
      }
      this.backend = backend;
      return this;
    }

    public Backend getBackend() {
      return backend;
    }

    /** The GPU backend's precision (default {@link Precision#FP32}); the CPU ignores it. */
    public Options setPrecision(Precision precision) {
      if (precision == null) {
        throw new IllegalArgumentException("precision is null");
      }
      this.precision = precision;
      return this;
    }

    /** "fp32" (default), "fp16" or "fp16_compute", as {@link Precision}. */
    public Options setPrecision(String name) {
      this.precision = Precision.fromName(name);
      return this;
    }

    public Precision getPrecision() {
      return precision;
    }

    /**
     * An existing directory (such as {@code new File(context.getCodeCacheDir(), "lite")} after
     * {@code mkdirs()}) where the GPU backend keeps its compiled program and tuning choices between
     * runs: the next interpreter on the same device, driver and runtime version loads them instead of
     * compiling (a corrupt or foreign file there is ignored and rewritten). {@code null} (default):
     * compile at every creation.
     */
    public Options setCacheDir(File cacheDir) {
      if (cacheDir != null && !cacheDir.isDirectory()) {
        throw new IllegalArgumentException("cacheDir " + cacheDir + " is not an existing directory (create it first)");
      }
      this.cacheDir = cacheDir;
      return this;
    }

    public File getCacheDir() {
      return cacheDir;
    }

    /** Work-group size tuning of the GPU backend (default {@link Tuning#NONE}). */
    public Options setTuning(Tuning tuning) {
      if (tuning == null) {
        throw new IllegalArgumentException("tuning is null");
      }
      this.tuning = tuning;
      return this;
    }

    /** "none" (default), "fast", "normal" or "exhaustive", as {@link Tuning}. */
    public Options setTuning(String name) {
      this.tuning = Tuning.fromName(name);
      return this;
    }

    public Tuning getTuning() {
      return tuning;
    }

    /**
     * The most memory the interpreter commits for the model (activations, scratch, packed weights; not
     * the mapped model file), checked before each allocation: a plan over it fails with
     * {@link Status#OUT_OF_MEMORY} naming the largest tensor, and nothing is allocated. Default
     * {@value #DEFAULT_MAX_MEMORY_BYTES} (1 GiB); {@link Long#MAX_VALUE} means no bound.
     */
    public Options setMaxMemoryBytes(long maxMemoryBytes) {
      if (maxMemoryBytes < 1) {
        throw new IllegalArgumentException("maxMemoryBytes must be >= 1, got " + maxMemoryBytes);
      }
      this.maxMemoryBytes = maxMemoryBytes;
      return this;
    }

    public long getMaxMemoryBytes() {
      return maxMemoryBytes;
    }

    /**
     * A bound on what the interpreter commits, as a multiple of the model's weight bytes, spent on
     * Winograd convolutions' transformed weights: the copies that save the most time per byte are kept
     * while they fit, the others are transformed at every run (slower, less memory). Default
     * {@link Float#POSITIVE_INFINITY}: every copy kept, the fastest. 1.5 keeps fp32 ResNet-18 at
     * 1.45x its weights for about +40% CPU work on ARM.
     */
    public Options setPackedWeightRatio(float ratio) {
      if (!(ratio > 0)) {
        throw new IllegalArgumentException("packedWeightRatio must be > 0 (POSITIVE_INFINITY: no bound), got " + ratio);
      }
      this.packedWeightRatio = ratio;
      return this;
    }

    public float getPackedWeightRatio() {
      return packedWeightRatio;
    }
  }

  private long model;
  private long handle;
  /** Keeps a borrowed direct buffer reachable while the native model reads it. */
  private ByteBuffer borrowedModel;
  private final String[] inputNames;
  private final String[] outputNames;
  private long lastInferenceNanos = -1;

  static {
    NativeLibrary.load();
  }

  /** Maps the model file read-only (weights are used in place). */
  public Interpreter(File modelFile) {
    this(modelFile, new Options());
  }

  public Interpreter(File modelFile, Options options) {
    this(loadFile(modelFile), null, options);
  }

  /**
   * Reads the model from {@code modelBuffer}'s remaining bytes: a direct buffer (a
   * {@link MappedByteBuffer} of a file or an asset) is used in place and must stay unchanged until
   * {@link #close()}; an array-backed one is copied.
   */
  public Interpreter(ByteBuffer modelBuffer) {
    this(modelBuffer, new Options());
  }

  public Interpreter(ByteBuffer modelBuffer, Options options) {
    this(loadBuffer(modelBuffer), modelBuffer != null && modelBuffer.isDirect() ? modelBuffer : null, options);
  }

  /** Takes the loaded model (destroyed here if the interpreter cannot be created). */
  private Interpreter(long model, ByteBuffer borrowedModel, Options options) {
    this.model = model;
    this.borrowedModel = borrowedModel;
    Options settings = options != null ? options : new Options();
    try {
      this.handle = NativeApi.createInterpreter(model, settings.numThreads, settings.cpuAffinity.code(),
          settings.backend.code(), settings.precision.code(),
          settings.cacheDir != null ? settings.cacheDir.getPath() : null, settings.tuning.code(),
          settings.maxMemoryBytes, settings.packedWeightRatio);
    } catch (RuntimeException | Error failure) {
      NativeApi.destroyModel(model);
      throw failure;
    }
    this.inputNames = names(true);
    this.outputNames = names(false);
  }

  private static long loadFile(File modelFile) {
    if (modelFile == null) {
      throw new IllegalArgumentException("modelFile is null");
    }
    return NativeApi.loadModelFile(modelFile.getPath());
  }

  private static long loadBuffer(ByteBuffer modelBuffer) {
    if (modelBuffer == null) {
      throw new IllegalArgumentException("modelBuffer is null");
    }
    if (modelBuffer.isDirect()) {
      return NativeApi.loadModelDirect(modelBuffer, modelBuffer.position(), modelBuffer.remaining());
    }
    if (modelBuffer.hasArray()) {
      return NativeApi.loadModelCopy(modelBuffer.array(), modelBuffer.arrayOffset() + modelBuffer.position(),
          modelBuffer.remaining());
    }
    byte[] copy = new byte[modelBuffer.remaining()];
    modelBuffer.duplicate().get(copy);
    return NativeApi.loadModelCopy(copy, 0, copy.length);
  }

  private String[] names(boolean input) {
    String[] names = new String[NativeApi.tensorCount(handle, input)];
    for (int i = 0; i < names.length; i++) {
      names[i] = NativeApi.tensorName(handle, input, i);
    }
    return names;
  }

  /** The runtime library's version, e.g. "0.1.0". */
  public static String runtimeVersion() {
    return NativeApi.version();
  }

  // -- running -----------------------------------------------------------------------------------

  /** Runs a model with one input and (at least) one output: output 0 is copied into {@code output}. */
  public void run(Object input, Object output) {
    Map<Integer, Object> outputs = new HashMap<>();
    outputs.put(0, output);
    runForMultipleInputsOutputs(new Object[] {input}, outputs);
  }

  /**
   * Sets every input (in model order), runs, and copies each output whose index is a key of
   * {@code outputs} into its value; outputs not in the map are left in the interpreter (read them
   * with another run's map, or ignore them).
   */
  public synchronized void runForMultipleInputsOutputs(Object[] inputs, Map<Integer, Object> outputs) {
    long interpreter = live();
    if (inputs == null || inputs.length != inputNames.length) {
      throw new IllegalArgumentException("the model has " + inputNames.length + " inputs " + Arrays.toString(inputNames)
          + ", got " + (inputs == null ? "null" : inputs.length));
    }
    if (outputs == null) {
      throw new IllegalArgumentException("outputs is null (pass an empty map to read no output)");
    }
    for (Map.Entry<Integer, Object> entry : outputs.entrySet()) {
      checkIndex(entry.getKey() == null ? -1 : entry.getKey(), outputNames, "output");
      if (entry.getValue() == null) {
        throw new IllegalArgumentException("the destination of output " + entry.getKey() + " is null");
      }
    }
    for (int i = 0; i < inputs.length; i++) {
      if (inputs[i] == null) {
        throw new IllegalArgumentException("input " + i + " '" + inputNames[i] + "' is null");
      }
      int[] shape = TensorData.shapeOf(inputs[i]);
      int[] current = toInts(NativeApi.tensorShape(interpreter, true, i));
      if (shape != null && !sameShape(shape, current)) {
        resize(interpreter, i, shape);
      }
    }
    for (int i = 0; i < inputs.length; i++) {
      TensorData.copyIn(interpreter, tensor(interpreter, true, i), inputs[i]);
    }
    long start = System.nanoTime();
    NativeApi.invoke(interpreter);
    lastInferenceNanos = System.nanoTime() - start;
    for (Map.Entry<Integer, Object> entry : outputs.entrySet()) {
      TensorData.copyOut(interpreter, tensor(interpreter, false, entry.getKey()), entry.getValue());
    }
  }

  /** A rank-0 tensor takes a one-element array. */
  private static boolean sameShape(int[] arrayShape, int[] tensorShape) {
    return Arrays.equals(arrayShape, tensorShape) || (tensorShape.length == 0 && Arrays.equals(arrayShape, new int[] {1}));
  }

  /** Wall time of the last run's native invoke, in nanoseconds; -1 before the first run. */
  public synchronized long getLastNativeInferenceDurationNanoseconds() {
    live();
    return lastInferenceNanos;
  }

  // -- tensors -----------------------------------------------------------------------------------

  public int getInputTensorCount() {
    return inputNames.length;
  }

  public int getOutputTensorCount() {
    return outputNames.length;
  }

  /** The index of the input called {@code name}; IllegalArgumentException naming the inputs if none. */
  public int getInputIndex(String name) {
    return indexOf(name, inputNames, "input");
  }

  public int getOutputIndex(String name) {
    return indexOf(name, outputNames, "output");
  }

  /** Input {@code index} as it is now (name, shape, type, quantization). */
  public synchronized Tensor getInputTensor(int index) {
    long interpreter = live();
    checkIndex(index, inputNames, "input");
    return tensor(interpreter, true, index);
  }

  /** Output {@code index}: its computed shape once allocated (after allocateTensors() or a run). */
  public synchronized Tensor getOutputTensor(int index) {
    long interpreter = live();
    checkIndex(index, outputNames, "output");
    return tensor(interpreter, false, index);
  }

  /**
   * Sets input {@code index}'s shape (for example to resolve its dynamic dims); shapes and memory
   * are planned again on the next {@link #allocateTensors()} or run.
   */
  public synchronized void resizeInput(int index, int[] dims) {
    long interpreter = live();
    checkIndex(index, inputNames, "input");
    if (dims == null) {
      throw new IllegalArgumentException("dims is null");
    }
    resize(interpreter, index, dims);
  }

  private void resize(long interpreter, int index, int[] dims) {
    long[] wide = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      wide[i] = dims[i];
    }
    NativeApi.resizeInput(interpreter, index, wide);
  }

  /** Prepares every op and plans memory now (a run does it when needed). */
  public synchronized void allocateTensors() {
    NativeApi.allocate(live());
  }

  /**
   * Number of variables: state a streaming model keeps across runs (e.g. an imported TFLite
   * resource variable); 0 for a stateless model.
   */
  public synchronized int getVariableCount() {
    return NativeApi.variableCount(live());
  }

  /**
   * Restores every variable to the model's initial value, so the next run starts a new stream (a
   * new utterance, a new video); does nothing for a stateless model.
   */
  public synchronized void resetVariables() {
    NativeApi.resetVariables(live());
  }

  /** Bytes of the activation arena of the current plan (0 before the first allocation). */
  public synchronized long getArenaBytes() {
    return NativeApi.arenaBytes(live());
  }

  // -- settings and profiling --------------------------------------------------------------------

  /**
   * The backend that runs the model ("auto" resolved): {@link Backend#OPENCL} when a GPU backend is
   * in use (ops it has no kernel for still run on the CPU), else {@link Backend#CPU}.
   */
  public synchronized Backend getBackend() {
    return NativeApi.backendInfo(live()).isEmpty() ? Backend.CPU : Backend.OPENCL;
  }

  /** With {@link Backend#AUTO}: why the GPU is not in use ("" when it is, or was not asked for). */
  public synchronized String getBackendNote() {
    return NativeApi.backendNote(live());
  }

  /**
   * One line about the GPU backend in use, for logs: device, OpenCL library, whether its program was
   * compiled or loaded from the cache directory and in how long ("" on the CPU).
   */
  public synchronized String getBackendInfo() {
    return NativeApi.backendInfo(live());
  }

  /**
   * The GPU backend's times since {@link #setProfiling}(true), tab-separated lines ("" on the CPU):
   * "program\t(compiled|loaded|none)\tMILLISECONDS", "tune\tLEVEL\tMILLISECONDS", then
   * "kernel\tNAME\tCALLS\tSECONDS" per kernel, slowest first (device time from OpenCL events).
   */
  public synchronized String getBackendProfile() {
    return NativeApi.backendProfile(live());
  }

  /**
   * Memory the last allocation counted against {@link Options#setMaxMemoryBytes}: activations,
   * scratch, packed weights and prepare-time values (0 before the first allocation).
   */
  public synchronized long getMemoryBytes() {
    return NativeApi.memoryBytes(live());
  }

  /** Bytes of the model's weights: what {@link Options#setPackedWeightRatio} multiplies. */
  public synchronized long getWeightsBytes() {
    return NativeApi.weightsBytes(live());
  }

  /** The CPUs {@link CpuAffinity#FAST_CORES} chose, ascending; empty when nothing is pinned. */
  public synchronized int[] getCpuAffinityCpus() {
    return NativeApi.cpuAffinityCpus(live());
  }

  /** Starts (and zeroes) or stops per-op timing; while off the runtime reads no clock. */
  public synchronized void setProfiling(boolean enabled) {
    NativeApi.setProfiling(live(), enabled);
  }

  /** One entry per op of the graph, in execution order. */
  public synchronized List<OpProfile> getOpProfile() {
    long interpreter = live();
    int count = NativeApi.profileCount(interpreter);
    String[] opNames = new String[count];
    String[] nodeNames = new String[count];
    double[] seconds = new double[count];
    long[] calls = new long[count];
    int[] computedBy = new int[count];
    String[] backends = new String[count];
    NativeApi.profile(interpreter, opNames, nodeNames, seconds, calls, computedBy, backends);
    List<OpProfile> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(new OpProfile(i, opNames[i], nodeNames[i], seconds[i], calls[i], computedBy[i], backends[i]));
    }
    return Collections.unmodifiableList(rows);
  }

  // -- lifetime ----------------------------------------------------------------------------------

  /** Frees the interpreter and its model; later calls raise IllegalStateException. Idempotent. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeApi.destroyInterpreter(handle);
      handle = 0;
    }
    if (model != 0) {
      NativeApi.destroyModel(model); // after its interpreter: the model must outlive it
      model = 0;
    }
    borrowedModel = null;
  }

  // -- helpers -----------------------------------------------------------------------------------

  private long live() {
    if (handle == 0) {
      throw new IllegalStateException("the interpreter is closed");
    }
    return handle;
  }

  private static Tensor tensor(long interpreter, boolean input, int index) {
    float[] scales = NativeApi.quantizationScales(interpreter, input, index);
    QuantizationParameters quantization = new QuantizationParameters(scales,
        NativeApi.quantizationZeroPoints(interpreter, input, index), NativeApi.quantizationAxis(interpreter, input, index));
    return new Tensor(index, NativeApi.tensorName(interpreter, input, index),
        DataType.fromCode(NativeApi.tensorDataType(interpreter, input, index)),
        toInts(NativeApi.tensorShape(interpreter, input, index)), NativeApi.tensorBytes(interpreter, input, index),
        quantization);
  }

  private static int[] toInts(long[] dims) {
    int[] narrow = new int[dims.length];
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] > Integer.MAX_VALUE) {
        throw new LiteException(Status.UNSUPPORTED, "dim " + dims[i] + " does not fit a Java int");
      }
      narrow[i] = (int) dims[i];
    }
    return narrow;
  }

  private static void checkIndex(int index, String[] names, String kind) {
    if (index < 0 || index >= names.length) {
      throw new IllegalArgumentException(kind + " index " + index + " out of range: the model has " + names.length
          + " " + kind + "s " + Arrays.toString(names));
    }
  }

  private static int indexOf(String name, String[] names, String kind) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no " + kind + " named '" + name + "'; the model's " + kind + "s are "
        + Arrays.toString(names));
  }
}
