package server

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/cairndb/cairn/internal/command"
)

// BACKUP dir is Cairn's online backup: a consistent copy of the data
// directory, taken while writes go on, that a server starts on as its
// data directory (see docs/operations.md). It is a command of its own,
// not an option of BGSAVE: BGSAVE, LASTSAVE and INFO persistence speak
// of the RDB file, which tools watch, and a backup is not one. It replies
// once the copy is complete, so a script knows when the directory may be
// moved, and any failure (the directory exists, the disk is full) is the
// reply. The server serves other clients meanwhile: the copy hard-links
// the engine's tables, and copies them only across file systems.

func backupCommands() []cmdEntry {
	return []cmdEntry{
		def("backup", 2, admin|noscript|command.NoMulti, noKeys, command.CatDangerous, "server", "0.1.0", "Writes a consistent copy of the data directory into a new directory while the server keeps serving.", cmdBackup),
	}
}

// backupDir resolves BACKUP's argument: a relative path is taken from the
// data directory's parent, so that `BACKUP backup-1` lands beside the
// data, not inside it.
func (srv *Server) backupDir(arg string) string {
	if filepath.IsAbs(arg) {
		return filepath.Clean(arg)
	}
	data, err := filepath.Abs(srv.cfg.Dir())
	if err != nil {
		data = filepath.Clean(srv.cfg.Dir())
	}
	return filepath.Join(filepath.Dir(data), arg)
}

func cmdBackup(x *ctx) {
	if len(x.arg(1)) == 0 {
		x.errorReply("ERR the backup directory may not be empty")
		return
	}
	dir := x.srv.backupDir(x.argStr(1))
	start := time.Now()
	err := x.srv.st.Engine().Checkpoint(dir)
	switch {
	case errors.Is(err, os.ErrExist):
		x.errorReply("ERR backup directory " + dir + " already exists")
		return
	case err != nil:
		x.srv.log.Error("BACKUP failed", "dir", dir, "err", err)
		x.errorReply("ERR backup into " + dir + " failed: " + err.Error())
		return
	}
	x.srv.log.Info("backup written", "dir", dir, "took", time.Since(start))
	x.ok()
}
