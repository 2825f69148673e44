package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// BACKUP replies OK once the copy is written, refuses a directory that
// exists, is refused in MULTI, and resolves a relative path beside the
// data directory. (cmd/cairn's TestBackupUnderWriteLoad opens backups
// taken under load.)
func TestBackupCommand(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, "dir", filepath.Join(dir, "data"))
	c := redistest.Dial(t, ts.addr)
	mustRaw(t, c, "SET", "k", "v")
	target := filepath.Join(dir, "b1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"BACKUP", target}, "+OK\r\n"},
		{[]string{"BACKUP", target}, "-ERR backup directory " + target + " already exists\r\n"},
		{[]string{"BACKUP", "b1"}, "-ERR backup directory " + target + " already exists\r\n"},
		{[]string{"BACKUP", ""}, "-ERR the backup directory may not be empty\r\n"},
		{[]string{"BACKUP"}, "-ERR wrong number of arguments for 'backup' command\r\n"},
		{[]string{"MULTI"}, "+OK\r\n"},
		{[]string{"BACKUP", "b2"}, "-ERR Command not allowed inside a transaction\r\n"},
		{[]string{"DISCARD"}, "+OK\r\n"},
		{[]string{"BACKUP", "b2"}, "+OK\r\n"},
	} {
		if got := string(mustRaw(t, c, tc.args...)); got != tc.want {
			t.Errorf("%s = %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	if got := ts.srv.backupDir("b2"); got != filepath.Join(dir, "b2") {
		t.Errorf("BACKUP b2 went to %s", got)
	}
}
