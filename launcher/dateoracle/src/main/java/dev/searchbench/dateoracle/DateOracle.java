package dev.searchbench.dateoracle;

import org.opensearch.common.time.DateFormatter;
import org.opensearch.common.time.DateFormatters;
import org.opensearch.index.mapper.DateFieldMapper;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Differential oracle for the Rust crate {@code isodate}.
 *
 * <p>Reads one date string per stdin line and prints, per line, {@code <epoch_second> <nano_of_second>}
 * or {@code error}. Parsing goes through OpenSearch 2.19.1's own code, the way
 * {@code DateFieldMapper.DateFieldType#parse(String)} does it:
 * {@code DateFormatters.from(formatter.parse(value), formatter.locale())}, which defaults the zone to
 * UTC, then {@code toInstant()}. The mapper then truncates to millis (or checks the nanos range for
 * {@code date_nanos}); we print the full instant so the crate can be checked to the nanosecond.
 *
 * <p>With {@code field-millis} as the first argument, prints instead what a millisecond {@code date}
 * field stores: {@code DateFieldMapper.Resolution.MILLISECONDS.convert(instant)}, which clamps the
 * instant to the range of a {@code long} count of milliseconds ({@code DateUtils.clampToMillisRange})
 * and then takes {@code toEpochMilli()}; one number (or {@code error}) a line.
 *
 * <p>Arguments: [{@code field-millis}] then none or a format string (default
 * {@code strict_date_optional_time||epoch_millis}).
 * {@code zones} prints {@link ZoneId#getAvailableZoneIds()} sorted, one a line, and the tzdb version.
 *
 * <p>Lines are split on '\n' only; a trailing '\r' is kept as part of the input so that the crate
 * and the oracle see the same bytes. Input is read as UTF-8.
 */
public final class DateOracle {
    public static void main(String[] args) throws Exception {
        boolean fieldMillis = args.length > 0 && args[0].equals("field-millis");
        if (fieldMillis) {
            args = java.util.Arrays.copyOfRange(args, 1, args.length);
        }
        String format = args.length > 0 ? args[0] : "strict_date_optional_time||epoch_millis";
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.UTF_8);
        if (format.equals("zones")) {
            for (String id : new TreeSet<>(ZoneId.getAvailableZoneIds())) {
                out.println(id);
            }
            out.flush();
            return;
        }
        if (format.equals("tzdb-version")) {
            out.println(java.time.zone.ZoneRulesProvider.getVersions("UTC").lastEntry().getKey());
            out.flush();
            return;
        }
        DateFormatter formatter = DateFormatter.forPattern(format);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        StringBuilder line = new StringBuilder();
        int c;
        boolean any = false;
        while (true) {
            c = in.read();
            if (c == -1) {
                if (any) {
                    out.println(parse(formatter, line.toString(), fieldMillis));
                }
                break;
            }
            any = true;
            if (c == '\n') {
                out.println(parse(formatter, line.toString(), fieldMillis));
                line.setLength(0);
                any = false;
            } else {
                line.append((char) c);
            }
        }
        out.flush();
    }

    static String parse(DateFormatter formatter, String s, boolean fieldMillis) {
        try {
            Instant i = DateFormatters.from(formatter.parse(s), formatter.locale(), ZoneOffset.UTC).toInstant();
            if (fieldMillis) {
                return Long.toString(DateFieldMapper.Resolution.MILLISECONDS.convert(i));
            }
            return i.getEpochSecond() + " " + i.getNano();
        } catch (RuntimeException e) {
            if (System.getenv("DATEORACLE_DEBUG") != null) {
                return "error " + e;
            }
            return "error";
        }
    }
}
