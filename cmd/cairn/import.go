package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/rdbimport"
)

// runImport is `cairn import FILE [config] [--name value ...]`: it loads the
// RDB file FILE into the data directory of the settings, writing progress
// and a summary to out.
func runImport(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return errors.New("usage: cairn import FILE.rdb [/path/to/cairn.conf] [--name value ...]")
	}
	file := args[0]
	args = args[1:]
	cfg := config.Default()
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		if err := cfg.LoadFile(args[0]); err != nil {
			return err
		}
		args = args[1:]
	}
	if err := cfg.ApplyArgs(args); err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if addr := cfg.PprofAddr(); addr != "" {
		// An import can run for long: its profiles show where.
		if err := servePprof(addr, log); err != nil {
			return err
		}
	}
	// All or nothing. The whole file is read once before the directory is
	// touched, so a corrupt, truncated or badly checksummed file leaves it
	// as it was. While the file loads, a marker in the directory says the
	// import is unfinished: a crash or an engine error halfway leaves a
	// directory the server refuses to serve until the import is run again
	// to its end (keys already in place are replaced, so a rerun is safe).
	if err := rdbimport.Check(f, cfg.Databases()); err != nil {
		return fmt.Errorf("import %s: the file is not valid, %s left as it was: %w", file, cfg.Dir(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	eng, st, err := openStorage(cfg, log)
	if err != nil {
		return lockedError(cfg.Dir(), err)
	}
	if err := markImport(cfg.Dir(), file); err != nil {
		return errors.Join(err, closeStorage(log, st, eng))
	}
	stats, err := rdbimport.Import(f, st, rdbimport.Options{Size: fi.Size(), Progress: out})
	fmt.Fprint(out, stats.Summary())
	if cerr := closeStorage(log, st, eng); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return fmt.Errorf("import %s into %s did not finish; the server will not serve the directory until an import runs to its end: %w", file, cfg.Dir(), err)
	}
	if err := unmarkImport(cfg.Dir()); err != nil {
		return err
	}
	fmt.Fprintf(out, "imported %s into %s\n", file, cfg.Dir())
	return nil
}

// importMarker is the file in a data directory that says an import into
// it has not finished. It holds the imported file's name.
const importMarker = "IMPORT-IN-PROGRESS"

// markImport records, durably, that an import of file into dir begins.
func markImport(dir, file string) error {
	p := filepath.Join(dir, importMarker)
	if err := writeSynced(p, []byte(file+"\n")); err != nil {
		return fmt.Errorf("import: marking %s: %w", dir, err)
	}
	return syncDir(dir)
}

// unmarkImport records, durably, that the import into dir finished.
func unmarkImport(dir string) error {
	if err := os.Remove(filepath.Join(dir, importMarker)); err != nil {
		return fmt.Errorf("import: unmarking %s: %w", dir, err)
	}
	return syncDir(dir)
}

// unfinishedImport returns an error when dir holds the marker of an import
// that did not finish: part of a file, which the server must not serve.
func unfinishedImport(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, importMarker))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("checking for an unfinished import: %w", err)
	}
	return fmt.Errorf("the import of %s into %s did not finish (the directory holds part of the file): run `cairn import` of that file again to load it whole, or remove %s to serve the partial data anyway",
		strings.TrimSpace(string(b)), dir, filepath.Join(dir, importMarker))
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
