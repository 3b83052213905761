// Package oracletest runs the Nova oracle (../shared/nova-oracle, the
// outside judge that runs Nova's own scheduler code) for tests, through a
// few long-lived Python processes rather than one process per command.
//
// An `oracle` command spends seconds importing Nova and milliseconds on
// the scenario; the tests that replay hundreds of scenarios through Nova
// (engine's and novacases' TestOracle) would spend half an hour of CPU on
// imports alone. A Pool starts n processes that import Nova once and then
// serve commands (serve.py, embedded here): each command still builds its
// own Nova world from the scenario (every config option set, a fresh
// HostManager), as a fresh `oracle` process does.
//
//	p, err := oracletest.Start(oracletest.DefaultOracle(root), 2, true)
//	res, err := p.Run("check", "s.json", "r.json") // res.Code: the oracle's exit status
//	p.Close()
//
// With exact set, `check` compares weights and limits with no tolerance
// (the oracle's own allows 1e-6 relative): placer promises Nova's weights
// bit for bit.
package oracletest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

//go:embed serve.py
var serveScript string

// Python is the interpreter Debian's Nova is installed for; the oracle
// runs under it.
const Python = "/usr/bin/python3"

// DefaultOracle is the oracle's script beside a clone whose root is root:
// root/../shared/nova-oracle/oracle.
func DefaultOracle(root string) string {
	return filepath.Join(root, "..", "shared", "nova-oracle", "oracle")
}

// Ready reports why the oracle at path cannot run Nova, or nil.
func Ready(oracle string) error {
	if _, err := os.Stat(oracle); err != nil {
		return fmt.Errorf("no oracle: %v (../shared must sit beside the clone)", err)
	}
	if out, err := exec.Command(Python, "-c", "import nova").CombinedOutput(); err != nil {
		return fmt.Errorf("Nova is not installed (%s -c 'import nova': %v: %s); run ../shared/nova-oracle/install.sh",
			Python, err, bytes.TrimSpace(out))
	}
	return nil
}

// Result is one command's outcome: the oracle's exit status and output.
type Result struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// Output is the command's stdout and stderr, for a test's failure message.
func (r Result) Output() string { return r.Stdout + r.Stderr }

// A Pool serves oracle commands from long-lived processes. Run may be
// called from many goroutines; at most n commands run at once.
type Pool struct {
	idle chan *proc
	mu   sync.Mutex
	all  []*proc
}

type proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	dead   error // why the process serves nobody any more
}

// Start starts n serving processes of the oracle at path (n >= 1) and
// waits until each has imported Nova. exact sets check's tolerances to 0.
func Start(oracle string, n int, exact bool) (*Pool, error) {
	if n < 1 {
		return nil, fmt.Errorf("oracletest: %d processes, want at least 1", n)
	}
	if err := Ready(oracle); err != nil {
		return nil, err
	}
	flag := "0"
	if exact {
		flag = "1"
	}
	p := &Pool{idle: make(chan *proc, n)}
	for i := 0; i < n; i++ {
		pr, err := startProc(oracle, flag)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.all = append(p.all, pr)
		p.idle <- pr
	}
	return p, nil
}

func startProc(oracle, exact string) (*proc, error) {
	cmd := exec.Command(Python, "-c", serveScript, oracle, exact)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("oracletest: starting %s: %v", Python, err)
	}
	pr := &proc{cmd: cmd, in: in, out: bufio.NewReader(out), stderr: &stderr}
	var hello struct {
		Ready bool `json:"ready"`
	}
	if err := pr.read(&hello); err != nil || !hello.Ready {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("oracletest: the oracle did not start (%v): %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return pr, nil
}

func (pr *proc) read(v any) error {
	line, err := pr.out.ReadBytes('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, v)
}

// Run runs one oracle command (its arguments as on the command line:
// "place", "s.json") and returns its exit status and output. An error
// means the serving process failed, not that the oracle disagreed.
func (p *Pool) Run(args ...string) (Result, error) {
	pr, ok := <-p.idle
	if !ok {
		return Result{}, errors.New("oracletest: pool closed")
	}
	defer func() { p.idle <- pr }()
	if pr.dead != nil {
		return Result{}, pr.dead
	}
	req, err := json.Marshal(args)
	if err != nil {
		return Result{}, err
	}
	var res Result
	if _, err = pr.in.Write(append(req, '\n')); err == nil {
		err = pr.read(&res)
	}
	if err != nil {
		// The process is gone or out of step: it serves nobody again.
		_ = pr.cmd.Process.Kill()
		pr.dead = fmt.Errorf("oracletest: the oracle process failed on %q: %v: %s", args, err, bytes.TrimSpace(pr.stderr.Bytes()))
		return Result{}, pr.dead
	}
	return res, nil
}

// Close stops every process. Commands must not be running.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, pr := range p.all {
		_ = pr.in.Close()
		if err := pr.cmd.Wait(); err != nil && pr.dead == nil && first == nil {
			first = fmt.Errorf("oracletest: %v: %s", err, bytes.TrimSpace(pr.stderr.Bytes()))
		}
	}
	p.all = nil
	return first
}
