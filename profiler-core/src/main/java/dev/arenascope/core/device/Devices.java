package dev.arenascope.core.device;

import java.util.Locale;
import java.util.Optional;
import java.util.logging.Logger;

import dev.arenascope.core.format.Bytes;

/**
 * Opens devices by their command-line name: {@code auto}, {@code cuda}, {@code cuda:N}, {@code host},
 * {@code virtual} or {@code virtual:BYTES}.
 *
 * <p>{@code auto} picks CUDA device 0 when it answers, otherwise the host, and says which and why in
 * {@link Selection#reason()} (also logged), so a fallback is never silent.
 */
public final class Devices {
    private static final Logger LOG = Logger.getLogger(Devices.class.getName());

    private Devices() {}

    /** An opened device and why it was chosen. */
    public record Selection(MemoryDevice device, String reason) {}

    /**
     * Opens the device named by {@code spec}.
     *
     * @throws IllegalArgumentException   on a name that is not one of the forms above
     * @throws DeviceUnavailableException when {@code cuda[:N]} was asked for and does not answer
     */
    public static Selection open(String spec) {
        String s = spec == null ? "auto" : spec.trim().toLowerCase(Locale.ROOT);
        Selection sel;
        if (s.equals("auto")) {
            Optional<String> why = probeCuda();
            if (why.isEmpty()) {
                CudaDevice d = CudaDevice.open(0);
                sel = new Selection(d, "auto: chose " + describe(d.info()));
            } else {
                HostDevice h = new HostDevice();
                sel = new Selection(h, "auto: no CUDA device (" + why.get() + "); falling back to " + describe(h.info()));
            }
        } else if (s.equals("cuda") || s.startsWith("cuda:")) {
            int index = s.equals("cuda") ? 0 : parseIndex(s.substring(5), spec);
            CudaDevice d;
            try {
                d = CudaDevice.open(index);
            } catch (LinkageError e) {
                throw new DeviceUnavailableException("JCuda is not on the class path (" + e.getMessage() + ")", e);
            }
            sel = new Selection(d, "chose " + describe(d.info()));
        } else if (s.equals("host")) {
            HostDevice h = new HostDevice();
            sel = new Selection(h, "chose " + describe(h.info()));
        } else if (s.equals("virtual") || s.startsWith("virtual:")) {
            long cap = s.equals("virtual") ? VirtualDevice.DEFAULT_CAPACITY : parseBytes(s.substring(8), spec);
            VirtualDevice v = new VirtualDevice(cap);
            sel = new Selection(v, "chose " + describe(v.info()));
        } else {
            throw new IllegalArgumentException("unknown device '" + spec + "': expected auto, cuda, cuda:N, host, virtual or virtual:BYTES");
        }
        LOG.info(sel.reason());
        return sel;
    }

    /** Why CUDA device 0 cannot be used, or empty; jcuda is optional, so its absence is a reason too. */
    private static Optional<String> probeCuda() {
        try {
            return CudaDevice.probe(0);
        } catch (LinkageError e) {
            return Optional.of("JCuda is not on the class path (" + e.getMessage() + ")");
        }
    }

    /** One line naming a device with its total and free memory. */
    public static String describe(DeviceInfo info) {
        return info.label() + ", " + Bytes.format(info.totalBytes()) + " total, "
                + Bytes.format(info.freeBytes()) + " free";
    }

    private static int parseIndex(String text, String spec) {
        try {
            int i = Integer.parseInt(text);
            if (i >= 0) {
                return i;
            }
        } catch (NumberFormatException ignored) {
            // fall through to the error below
        }
        throw new IllegalArgumentException("bad device index in '" + spec + "': expected cuda:N with N >= 0");
    }

    private static long parseBytes(String text, String spec) {
        try {
            return Bytes.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad capacity in '" + spec + "': " + e.getMessage());
        }
    }
}
