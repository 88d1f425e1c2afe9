/*
 * The reader of searchbench's engine profile: reads Flight Recorder recordings with the JDK's
 * own jdk.jfr.consumer API and prints what a profile needs, summed by distinct stack, as one
 * JSON object on stdout:
 *
 *   {"stacks": [{"frames": ["pkg.Class.method", ...], "cpu": N, "allocs": N, "bytes": N}, ...],
 *    "gcs": N, "gc_pause_ns": N}
 *
 * frames leaf first, every frame of the recorded stack. Summing here, not in searchbench, is
 * what makes it fast: `jfr print --json` writes every event with its whole stack (about
 * 60 bytes of JSON per recorded byte) and cuts stacks at 5 frames unless told otherwise.
 *
 * Compiled once per JDK by searchbench (javac from the node's own JDK) into its cache, run
 * as: java -cp DIR ProfileReader [--since EPOCH_NANOS] RECORDING... With --since, events that
 * began before that instant are skipped: the recording starts with the load, so Flight
 * Recorder's own start-up falls in the warm-up, and only the measured window is counted.
 * A damaged recording is an IOException: its message on stderr and exit 1.
 */
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

public final class ProfileReader {
    /** What one stack was sampled for. */
    static final class Counts {
        long cpu;
        long allocs;
        long bytes;

        void add(Counts o) {
            cpu += o.cpu;
            allocs += o.allocs;
            bytes += o.bytes;
        }
    }

    public static void main(String[] args) {
        Map<List<String>, Counts> stacks = new HashMap<>();
        long gcs = 0;
        long pauseNanos = 0;
        Instant since = null;
        int files = 0;
        if (args.length >= 2 && args[0].equals("--since")) {
            since = Instant.ofEpochSecond(0, Long.parseLong(args[1]));
            files = 2;
        }
        for (int a = files; a < args.length; a++) {
            String file = args[a];
            // A chunk's stacks are one object per constant: counting by identity first names
            // each distinct stack's frames once, not once per event.
            Map<RecordedStackTrace, Counts> seen = new IdentityHashMap<>();
            Counts noStack = new Counts();
            try (RecordingFile recording = new RecordingFile(Path.of(file))) {
                while (recording.hasMoreEvents()) {
                    RecordedEvent e = recording.readEvent();
                    if (since != null && e.getStartTime().isBefore(since)) {
                        continue;
                    }
                    String type = e.getEventType().getName();
                    if (type.equals("jdk.GarbageCollection")) {
                        gcs++;
                        pauseNanos += e.getDuration("sumOfPauses").toNanos();
                        continue;
                    }
                    boolean cpu = type.equals("jdk.ExecutionSample");
                    if (!cpu && !type.equals("jdk.ObjectAllocationSample")) {
                        continue;
                    }
                    RecordedStackTrace st = e.getStackTrace();
                    Counts c = st == null ? noStack : seen.computeIfAbsent(st, k -> new Counts());
                    if (cpu) {
                        c.cpu++;
                    } else {
                        c.allocs++;
                        c.bytes += e.getLong("weight");
                    }
                }
            } catch (IOException | RuntimeException e) {
                System.err.println(file + ": " + e);
                System.exit(1);
            }
            stacks.computeIfAbsent(List.of(), k -> new Counts()).add(noStack);
            for (Map.Entry<RecordedStackTrace, Counts> s : seen.entrySet()) {
                List<String> frames = new ArrayList<>();
                for (RecordedFrame f : s.getKey().getFrames()) {
                    frames.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
                }
                stacks.computeIfAbsent(frames, k -> new Counts()).add(s.getValue());
            }
        }
        StringBuilder out = new StringBuilder(1 << 16);
        out.append("{\"stacks\":[");
        boolean first = true;
        for (Map.Entry<List<String>, Counts> s : stacks.entrySet()) {
            Counts c = s.getValue();
            if (c.cpu == 0 && c.allocs == 0) {
                continue;
            }
            out.append(first ? "" : ",").append("{\"frames\":[");
            first = false;
            for (int i = 0; i < s.getKey().size(); i++) {
                out.append(i == 0 ? "" : ",");
                quote(out, s.getKey().get(i));
            }
            out.append("],\"cpu\":").append(c.cpu)
                .append(",\"allocs\":").append(c.allocs)
                .append(",\"bytes\":").append(c.bytes).append('}');
        }
        out.append("],\"gcs\":").append(gcs).append(",\"gc_pause_ns\":").append(pauseNanos).append("}\n");
        System.out.print(out);
        System.out.flush();
    }

    /** A JSON string: class and method names may hold any character a class file allows. */
    static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\') {
                out.append('\\').append(ch);
            } else if (ch < 0x20) {
                out.append(String.format("\\u%04x", (int) ch));
            } else {
                out.append(ch);
            }
        }
        out.append('"');
    }
}
