package plots

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Meta says what measured a chart's data: the caption every chart
// carries.
type Meta struct {
	Commit       string // the placer commit measured
	CPU          string // the CPU model (/proc/cpuinfo's "model name")
	AVX512F      string // "yes" or "no": whether the CPU has AVX-512F
	CPUs         string // processors the process could use
	Go           string // the Go version (go1.26.8)
	GOEXPERIMENT string // the experiments of the build, when any
	Date         string // when it was measured (UTC)
}

// Config keys of a Meta, as data file headers carry them.
const (
	KeyCommit = "commit"
	// KeyCPUInfo is the model name of /proc/cpuinfo. go test prints a
	// "cpu:" line of its own (the CPUID brand string, which may differ:
	// "Oxide Virtual Turin-like Processor" where /proc/cpuinfo says "AMD
	// EPYC"); a caption names the cpuinfo model when the data has one,
	// so that every chart of a machine names it alike, else go test's.
	KeyCPUInfo      = "cpuinfo"
	KeyCPU          = "cpu"
	KeyAVX512F      = "avx512f"
	KeyCPUs         = "cpus"
	KeyGo           = "go"
	KeyGOEXPERIMENT = "goexperiment"
	KeyDate         = "date"
)

// MetaOf reads a Meta from a data file's configuration.
func MetaOf(c Config) Meta {
	cpu := c[KeyCPUInfo]
	if cpu == "" {
		cpu = c[KeyCPU]
	}
	return Meta{
		Commit: c[KeyCommit], CPU: cpu, AVX512F: c[KeyAVX512F], CPUs: c[KeyCPUs],
		Go: c[KeyGo], GOEXPERIMENT: c[KeyGOEXPERIMENT], Date: c[KeyDate],
	}
}

// Header is m as the configuration lines of a data file (Parse reads
// them back with MetaOf); empty fields are left out.
func (m Meta) Header() string {
	var b strings.Builder
	for _, kv := range []KV{
		{KeyCommit, m.Commit}, {KeyCPUInfo, m.CPU}, {KeyAVX512F, m.AVX512F}, {KeyCPUs, m.CPUs},
		{KeyGo, m.Go}, {KeyGOEXPERIMENT, m.GOEXPERIMENT}, {KeyDate, m.Date},
	} {
		if kv.Value != "" {
			b.WriteString(kv.Key + ": " + kv.Value + "\n")
		}
	}
	return b.String()
}

// Caption is the line a chart carries: "measured at commit 2e9c4bd on AMD
// EPYC (AVX-512F: yes, 2 CPUs), go1.26.8, 2025-11-25T08:20:00Z"; what is
// not known is left out, and a Meta that knows nothing says so.
func (m Meta) Caption() string {
	var parts []string
	if m.Commit != "" {
		parts = append(parts, "measured at commit "+m.Commit)
	} else {
		parts = append(parts, "measured at an unrecorded commit")
	}
	if m.CPU != "" {
		cpu := "on " + m.CPU
		var about []string
		if m.AVX512F != "" {
			about = append(about, "AVX-512F: "+m.AVX512F)
		}
		if m.CPUs != "" {
			about = append(about, m.CPUs+" CPUs")
		}
		if len(about) > 0 {
			cpu += " (" + strings.Join(about, ", ") + ")"
		}
		parts = append(parts, cpu)
	}
	if m.Go != "" {
		g := m.Go
		if m.GOEXPERIMENT != "" {
			g += " GOEXPERIMENT=" + m.GOEXPERIMENT
		}
		parts = append(parts, g)
	}
	if m.Date != "" {
		parts = append(parts, m.Date)
	}
	return strings.Join(parts, ", ")
}

// Captions are the distinct captions of metas, in order of first
// appearance: one line per machine, commit or date that measured a
// chart's data.
func Captions(metas ...Meta) []string {
	var out []string
	for _, m := range metas {
		if c := m.Caption(); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// LocalMeta is the Meta of this process, for a chart drawn from what it
// measured itself (placer simulate --report): commit is the commit to
// name, or "" for the build's own (debug.ReadBuildInfo's vcs.revision,
// when it was built with VCS stamping).
func LocalMeta(commit string) Meta {
	m := Meta{
		Commit: commit,
		CPUs:   strconv.Itoa(runtime.GOMAXPROCS(0)),
		Go:     runtime.Version(),
		Date:   time.Now().UTC().Format(time.RFC3339),
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && m.Commit == "":
				m.Commit = s.Value
				if len(m.Commit) > 12 {
					m.Commit = m.Commit[:12]
				}
			case s.Key == "GOEXPERIMENT":
				m.GOEXPERIMENT = s.Value
			}
		}
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		model, avx := CPUInfo(f)
		f.Close()
		if model != "" {
			m.CPU = model
			m.AVX512F = "no"
			if avx {
				m.AVX512F = "yes"
			}
		}
	}
	return m
}

// CPUInfo reads /proc/cpuinfo: the first processor's model name and
// whether its flags include avx512f.
func CPUInfo(r io.Reader) (model string, avx512f bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	seenFlags := false
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			if model == "" {
				model = strings.Join(strings.Fields(v), " ")
			}
		case "flags":
			if !seenFlags {
				seenFlags = true
				avx512f = slices.Contains(strings.Fields(v), "avx512f")
			}
		}
		if model != "" && seenFlags {
			break
		}
	}
	return model, avx512f
}
