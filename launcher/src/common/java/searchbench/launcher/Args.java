package searchbench.launcher;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Command-line arguments shared by every product's launcher. */
final class Args {
    int httpPort;
    int transportPort;
    String dataDir;
    String cluster = "searchbench";
    /** Node settings as key=value, applied after the runner's own (they win). */
    final List<String[]> settings = new ArrayList<>();
    /** List settings as key=a,b,c. */
    final List<String[]> lists = new ArrayList<>();
    /** Settings to drop (a default of ours that an older release does not know). */
    final List<String> removals = new ArrayList<>();
    /** When set, the node stops as soon as stdin reaches EOF: it dies with the process that started it. */
    static boolean watchStdin;

    static Args parse(String[] argv) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String flag = argv[i];
            if (flag.equals("--watch-stdin")) {
                watchStdin = true;
                continue;
            }
            if (i + 1 >= argv.length) {
                fail("missing value after " + flag);
            }
            String value = argv[++i];
            switch (flag) {
                case "--http" -> a.httpPort = Integer.parseInt(value);
                case "--transport" -> a.transportPort = Integer.parseInt(value);
                case "--data" -> a.dataDir = value;
                case "--cluster" -> a.cluster = value;
                case "--setting" -> a.settings.add(pair(flag, value));
                case "--list" -> a.lists.add(pair(flag, value));
                case "--remove" -> a.removals.add(value);
                default -> fail("unknown flag " + flag);
            }
        }
        if (a.httpPort == 0 || a.transportPort == 0 || a.dataDir == null) {
            fail("usage: Main --http PORT --transport PORT --data DIR [--cluster NAME] [--setting K=V]... [--list K=A,B]... [--remove K]... [--watch-stdin]");
        }
        return a;
    }

    private static String[] pair(String flag, String value) {
        int eq = value.indexOf('=');
        if (eq <= 0) {
            fail(flag + " wants key=value, got " + value);
        }
        return new String[] {value.substring(0, eq), value.substring(eq + 1)};
    }

    private static void fail(String message) {
        System.err.println("searchbench-launcher: " + message);
        System.exit(2);
    }

    /** Says the node is built, then parks the main thread until shutdown. */
    static void announceAndWait() throws InterruptedException {
        System.out.println("searchbench-launcher: node started");
        System.out.flush();
        if (watchStdin) {
            try {
                while (System.in.read() != -1) {
                    // Drain: only EOF matters.
                }
            } catch (IOException e) {
                // A broken pipe means the parent is gone too.
            }
            System.out.println("searchbench-launcher: stdin closed, stopping");
            System.exit(0);
        }
        Thread.currentThread().join();
    }
}
