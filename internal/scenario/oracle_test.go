package scenario

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// oracleDir is the nova-oracle beside the repository (../shared from its
// root), or $NOVA_ORACLE. Only its parser is used (standard library
// Python, no Nova). Without it the test skips, except in CI (CI=true),
// where ../shared is always beside the clone and a skip would hide a
// broken set-up: there it fails.
func oracleDir(t *testing.T) string {
	t.Helper()
	missing := t.Skipf
	if os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	dir := os.Getenv("NOVA_ORACLE")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "nova-oracle")
	}
	if _, err := os.Stat(filepath.Join(dir, "novaoracle", "scenario.py")); err != nil {
		missing("no nova-oracle at %s (set NOVA_ORACLE): %v", dir, err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		missing("no python3: %v", err)
	}
	return dir
}

// askOracle runs testdata/oracle_parse.py (the oracle's scenario parser,
// standard library only) on one request and decodes its answer into out.
func askOracle(t *testing.T, req, out any) {
	t.Helper()
	dir := oracleDir(t)
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "oracle_parse.py"), dir)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	answer, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle_parse.py: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(answer, out); err != nil {
		t.Fatalf("oracle_parse.py answer: %v\n%s", err, answer)
	}
}

// TestMessagesMatchOracle checks the bad-input table against the oracle's
// own parser: the same message, except where the table says it differs on
// purpose (and then the oracle must refuse the document too).
func TestMessagesMatchOracle(t *testing.T) {
	var texts []string
	for _, tc := range badCases {
		if strings.Contains(tc.want, "<= 1048576") {
			texts = append(texts, "{}") // the oracle would build 10^12 uuids
			continue
		}
		texts = append(texts, tc.text)
	}
	var answer struct{ Messages []*string }
	askOracle(t, map[string]any{"messages": texts}, &answer)
	for i, tc := range badCases {
		got := answer.Messages[i]
		switch {
		case strings.Contains(tc.want, "<= 1048576"):
			// Not asked (see above): the oracle has no such bound.
		case got == nil && strings.Contains(tc.want, "fits"):
			// The oracle takes Python's unbounded ints; Nova could not.
		case got == nil:
			t.Errorf("%s: the oracle accepts it, Decode says %q", tc.name, tc.want)
		case !tc.differs && *got != tc.want:
			t.Errorf("%s:\noracle: %s\n table: %s", tc.name, *got, tc.want)
		case tc.differs && *got == tc.want:
			t.Errorf("%s: marked as differing, but the oracle says the same", tc.name)
		}
	}
}

// TestRoundTripMatchesOracle checks decoding and re-encoding against the
// oracle: the oracle's parser reads the original document and
// EncodeScenario's output as the same scenario (defaults included, so a
// default Decode got wrong shows up here).
func TestRoundTripMatchesOracle(t *testing.T) {
	var pairs [][2]string
	var names []string
	add := func(name, text string) {
		s := mustDecode(t, text)
		var b bytes.Buffer
		if err := EncodeScenario(&b, s); err != nil {
			t.Fatalf("%s: EncodeScenario: %v", name, err)
		}
		pairs = append(pairs, [2]string{text, b.String()})
		names = append(names, name)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "gen-*.json"))
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(f, string(text))
	}
	for _, tc := range goodCases {
		add(tc.name, tc.text)
	}
	var answer struct{ Same []*string }
	askOracle(t, map[string]any{"same": pairs}, &answer)
	for i, diff := range answer.Same {
		if diff != nil {
			t.Errorf("%s: the oracle reads the re-encoded document differently: %s", names[i], *diff)
		}
	}
}
