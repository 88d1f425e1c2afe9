package dev.searchbench.datebench;

import com.ethlo.time.ITU;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * One date string to an {@link Instant}, the way each engine does it for a {@code date}
 * field: {@code DateFormatter.parse} then {@code DateFormatters.from(..).toInstant()}.
 * ethlo ITU is a standalone RFC 3339 parser for reference (stricter grammar: it rejects
 * most of what strict_date_optional_time accepts beyond RFC 3339).
 *
 * <p>Elasticsearch 8.17's {@code strict_date_optional_time} is served by its hand-written
 * {@code Iso8601Parser} unless {@code -Des.datetime.java_time_parsers=true} is set; the
 * setup checks the formatter class so the figure is not silently the java.time one.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class DateParseBench {

    @Param({"2023-01-01T23:38:34.000Z", "2023-11-04T21:38:47.605716183+01:00"})
    public String input;

    private org.opensearch.common.time.DateFormatter opensearch;
    private org.elasticsearch.common.time.DateFormatter elasticsearch;

    @Setup
    public void setup() {
        opensearch = org.opensearch.common.time.DateFormatter.forPattern("strict_date_optional_time");
        elasticsearch = org.elasticsearch.common.time.DateFormatter.forPattern("strict_date_optional_time");
        // Make sure Elasticsearch runs its Iso8601Parser fast path, not java.time.
        try {
            java.lang.reflect.Field f = elasticsearch.getClass().getDeclaredField("parsers");
            f.setAccessible(true);
            Object first = ((Object[]) f.get(elasticsearch))[0];
            if (!first.getClass().getSimpleName().startsWith("Iso8601")) {
                throw new IllegalStateException("Elasticsearch uses " + first.getClass() + ", not Iso8601Parser");
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        Instant a = opensearch2191();
        Instant b = elasticsearch817();
        Instant c = ethloItu();
        if (!a.equals(b) || !a.equals(c)) {
            throw new IllegalStateException("parsers disagree on " + input + ": " + a + " " + b + " " + c);
        }
    }

    @Benchmark
    public Instant opensearch2191() {
        return org.opensearch.common.time.DateFormatters.from(opensearch.parse(input)).toInstant();
    }

    @Benchmark
    public Instant elasticsearch817() {
        return org.elasticsearch.common.time.DateFormatters.from(elasticsearch.parse(input)).toInstant();
    }

    @Benchmark
    public Instant ethloItu() {
        return ITU.parseDateTime(input).toInstant();
    }
}
