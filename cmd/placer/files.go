package main

import (
	"io"
	"os"
	"path/filepath"
)

// writeFileAtomic writes a regular file whole or not at all: write fills
// a temporary file beside it (synced), which then replaces it, keeping an
// existing file's mode (0644 for a new one). A write that fails (a full
// disk) leaves what was there as it was, rather than a file truncated,
// then half written. A symbolic link is followed to the file it names.
// What is not a regular file (/dev/stdout, a named pipe), or a folder
// where no temporary file can be made, is written in place, as before.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	mode := os.FileMode(0o644)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return writeInPlace(path, st.Mode().Perm(), write)
		}
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return writeInPlace(path, mode, write)
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
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

// writeInPlace is os.WriteFile through write.
func writeInPlace(path string, mode os.FileMode, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
