package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomic: a write that fails leaves the file as it was and
// no temporary file beside it; one that succeeds replaces it whole.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte("the last report"), 0o640); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := writeFileAtomic(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half a rep"); err != nil {
			return err
		}
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("a failed write: %v, want its error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "the last report" {
		t.Fatalf("after a failed write the file holds %q", b)
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "this one"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "this one" {
		t.Fatalf("after a write the file holds %q", b)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v; want the file's own, 0640", st.Mode().Perm(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files in the folder, want the report alone", len(ents))
	}
	// A link is followed: the file it names is replaced, the link kept.
	link := filepath.Join(dir, "latest.html")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(link, func(w io.Writer) error { _, err := io.WriteString(w, "through the link"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "through the link" {
		t.Fatalf("the linked file holds %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	// What is not a regular file is written in place.
	if err := writeFileAtomic(os.DevNull, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatalf("writing %s: %v", os.DevNull, err)
	}
	// A new file is 0644.
	fresh := filepath.Join(dir, "new.json")
	if err := writeFileAtomic(fresh, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("a new file's mode %v, %v; want 0644", st.Mode().Perm(), err)
	}
}
