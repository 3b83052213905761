// Package plots draws placer's charts as SVG with gonum.org/v1/plot: the
// scaling charts of the benchmarks (time per batch against hosts for the
// engine, the reference and Nova's own code; placements/s against
// Scheduler workers) and the generic line, time-series and bar charts that
// reports build on.
//
// Its input is text as the measuring tools print it, kept in data files so
// that a chart can be drawn again without measuring again:
//
//   - go test -bench output (Parse): "key: value" configuration lines
//     (go test's own goos, cpu, pkg; and commit, cpuinfo, avx512f, cpus,
//     go, date from the script that measured) and result lines
//     "BenchmarkName/key=value/...-N  iterations  value unit  value unit ...";
//     every key=value part of a name can become an axis or a series;
//   - timing records (same parser): a line "$ COMMAND  # key=value ..."
//     naming what ran and what it measured (series=engine hosts=1000
//     instances=1), followed by the command's output as printed, of which
//     the lines "place_seconds: X" (placer place --timing) and
//     "nova_place_seconds: X" (oracle time) give the time.
//
// Every chart carries a caption: the commit, CPU model (and whether it has
// AVX-512F), Go version and date of the measurement (Meta).
package plots
