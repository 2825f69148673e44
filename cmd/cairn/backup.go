package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/server"
)

// The data-directory subcommands: backup, restore and export. Each works
// on a data directory no server holds, except `backup --addr`, which asks
// a running server for the backup (the BACKUP command). See
// docs/operations.md.

const backupUsage = `usage: cairn backup DATADIR DESTDIR            (server stopped)
       cairn backup --addr HOST:PORT [--user USER] [--password PASSWORD] DESTDIR
                                               (running server; DESTDIR on its machine)`

// runBackup is `cairn backup`: a consistent copy of a data directory into
// DESTDIR, which must not exist.
func runBackup(args []string, out io.Writer) error {
	var addr, user, pass string
	var pos []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--addr", "--user", "--password":
			if i+1 == len(args) {
				return errors.New(backupUsage)
			}
			i++
			switch a {
			case "--addr":
				addr = args[i]
			case "--user":
				user = args[i]
			default:
				pass = args[i]
			}
		default:
			if strings.HasPrefix(a, "-") {
				return fmt.Errorf("unknown option %s\n%s", a, backupUsage)
			}
			pos = append(pos, a)
		}
	}
	start := time.Now()
	if addr != "" {
		if len(pos) != 1 {
			return errors.New(backupUsage)
		}
		dest, err := filepath.Abs(pos[0])
		if err != nil {
			return err
		}
		if err := askBackup(addr, user, pass, dest); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		fmt.Fprintf(out, "backup of the server at %s written to %s in %v\n", addr, dest, time.Since(start).Round(time.Millisecond))
		return nil
	}
	if len(pos) != 2 {
		return errors.New(backupUsage)
	}
	if err := checkpointDir(pos[0], pos[1]); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(out, "backup of %s written to %s in %v\n", pos[0], pos[1], time.Since(start).Round(time.Millisecond))
	return nil
}

// runRestore is `cairn restore BACKUPDIR DATADIR`: it makes DATADIR, which
// must not exist, a data directory holding the backup. The backup keeps
// its data, so it can be restored again (a server started on the backup
// directory itself would write to it).
func runRestore(args []string, out io.Writer) error {
	if len(args) != 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[1], "-") {
		return errors.New("usage: cairn restore BACKUPDIR DATADIR   (DATADIR must not exist; no server may use BACKUPDIR)")
	}
	start := time.Now()
	if err := checkpointDir(args[0], args[1]); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(out, "restored %s into %s in %v; start the server with --dir %s\n", args[0], args[1], time.Since(start).Round(time.Millisecond), args[1])
	return nil
}

// checkpointDir opens the data directory src with the engine and writes
// its checkpoint into dest.
func checkpointDir(src, dest string) error {
	if err := isDataDir(src); err != nil {
		return err
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s already exists", dest)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.OpenPebble(src, engine.PebbleOptions{Logger: log})
	if err != nil {
		err = lockedError(src, err)
		if strings.Contains(err.Error(), "in use") || strings.Contains(err.Error(), "locked") {
			err = fmt.Errorf("%w; for a running server use cairn backup --addr HOST:PORT DESTDIR", err)
		}
		return err
	}
	err = eng.Checkpoint(dest)
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	return err
}

// isDataDir reports why dir is not a data directory, if it is not one:
// opening the engine on it would otherwise make a new, empty one.
func isDataDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	m, err := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	if err != nil || len(m) == 0 {
		return fmt.Errorf("%s is not a Cairn data directory (no MANIFEST file)", dir)
	}
	return nil
}

// askBackup sends BACKUP dest to the server at addr, after AUTH when a
// password is given, and waits for the reply however long the copy takes.
func askBackup(addr, user, pass, dest string) error {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	call := func(args ...string) error {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := io.WriteString(conn, b.String()); err != nil {
			return err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "-") {
			return errors.New(line[1:])
		}
		return nil
	}
	if pass != "" {
		auth := []string{"AUTH", pass}
		if user != "" {
			auth = []string{"AUTH", user, pass}
		}
		if err := call(auth...); err != nil {
			return err
		}
	}
	return call("BACKUP", dest)
}

// runExport is `cairn export DATADIR FILE [--name value ...]`: it writes
// the data directory as an RDB file that Redis 7 loads, as SAVE does, with
// no server running. Settings such as --databases apply as to the server.
func runExport(args []string, out io.Writer) error {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[1], "-") {
		return errors.New("usage: cairn export DATADIR FILE.rdb [--name value ...]")
	}
	dir, file := args[0], args[1]
	if err := isDataDir(dir); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	cfg := config.Default()
	if err := cfg.ApplyArgs(append(args[2:], "--dir", dir)); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eng, st, err := openStorage(cfg, log)
	if err != nil {
		return fmt.Errorf("export: %w", lockedError(dir, err))
	}
	start := time.Now()
	err = writeFile(file, func(w io.Writer) error { return server.WriteRDB(w, st) })
	if cerr := closeStorage(log, st, eng); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export %s to %s: %w", dir, file, err)
	}
	size := ""
	if fi, err := os.Stat(file); err == nil {
		size = " (" + strconv.FormatInt(fi.Size(), 10) + " bytes)"
	}
	fmt.Fprintf(out, "exported %s to %s%s in %v\n", dir, file, size, time.Since(start).Round(time.Millisecond))
	return nil
}

// writeFile writes a file through a temporary one renamed over it once
// complete and synced, so that a failure leaves no half-written file.
func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".export-*.rdb")
	if err != nil {
		return err
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
