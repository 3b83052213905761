package main

import (
	"io"
	"os"
	"path/filepath"
)

// writeFileAtomic writes a file whole or not at all: write fills a
// temporary file beside path, which then replaces path. A write that fails
// (a full disk) leaves what was at path as it was, rather than a file
// truncated, then half written.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
