package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

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
	eng, st, err := openStorage(cfg, log)
	if err != nil {
		return err
	}
	stats, err := rdbimport.Import(f, st, rdbimport.Options{Size: fi.Size(), Progress: out})
	fmt.Fprint(out, stats.Summary())
	if cerr := closeStorage(log, st, eng); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return fmt.Errorf("import %s into %s: %w", file, cfg.Dir(), err)
	}
	fmt.Fprintf(out, "imported %s into %s\n", file, cfg.Dir())
	return nil
}
