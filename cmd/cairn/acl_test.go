package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestACLRedisCli: a server started with an aclfile, used as an operator
// would with redis-cli: users log in with --user/--pass, are refused with
// Redis's NOPERM texts, ACL SAVE rewrites the file, and a corrupt file stops
// the next start with its line.
func TestACLRedisCli(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("no redis-cli")
	}
	bin := buildCairn(t)
	dir := t.TempDir()
	aclfile := filepath.Join(dir, "users.acl")
	if err := os.WriteFile(aclfile, []byte("user default on >adminpw ~* &* +@all\nuser app on >apppw ~app:* resetchannels -@all +@read +set\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startCairn(t, bin, true, 0, "--dir", filepath.Join(dir, "data"), "--aclfile", aclfile)
	run := func(args ...string) string {
		t.Helper()
		out, _ := exec.Command(cli, append([]string{"-p", strconv.Itoa(p.port), "--no-auth-warning"}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "NOAUTH Authentication required."},
		{[]string{"--user", "app", "--pass", "apppw", "SET", "app:1", "v"}, "OK"},
		{[]string{"--user", "app", "--pass", "apppw", "GET", "app:1"}, "v"},
		{[]string{"--user", "app", "--pass", "apppw", "GET", "other"}, "NOPERM No permissions to access a key"},
		{[]string{"--user", "app", "--pass", "apppw", "DEL", "app:1"}, "NOPERM User app has no permissions to run the 'del' command"},
		{[]string{"--user", "app", "--pass", "apppw", "ACL", "WHOAMI"}, "NOPERM User app has no permissions to run the 'acl|whoami' command"},
		{[]string{"--user", "app", "--pass", "wrong", "PING"}, "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.\nNOAUTH Authentication required."},
		{[]string{"-a", "adminpw", "ACL", "WHOAMI"}, "default"},
		{[]string{"-a", "adminpw", "ACL", "SETUSER", "ops", "on", ">opspw", "+@admin", "(~ops:* +get)"}, "OK"},
		{[]string{"-a", "adminpw", "ACL", "SAVE"}, "OK"},
		{[]string{"-a", "adminpw", "ACL", "USERS"}, "app\ndefault\nops"},
	} {
		if got := run(tt.args...); got != tt.want {
			t.Errorf("redis-cli %q:\n got  %q\n want %q", tt.args, got, tt.want)
		}
	}
	if log := run("-a", "adminpw", "ACL", "LOG", "1"); !strings.Contains(log, "auth") || !strings.Contains(log, "app") {
		t.Errorf("ACL LOG after a wrong password: %s", log)
	}
	saved, err := os.ReadFile(aclfile)
	if err != nil || !strings.Contains(string(saved), "user ops on sanitize-payload #") || !strings.Contains(string(saved), " (~ops:* resetchannels -@all +get)") {
		t.Errorf("ACL SAVE wrote %q, %v", saved, err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, p.out)
	}

	// A corrupt aclfile: the server refuses to start, naming the line.
	if err := os.WriteFile(aclfile, append(saved, []byte("user broken on ~x +nosuch\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--dir", filepath.Join(dir, "data"), "--aclfile", aclfile, "--port", strconv.Itoa(freePort(t))).CombinedOutput()
	if err == nil {
		t.Fatalf("started with a corrupt aclfile:\n%s", out)
	}
	if want := aclfile + ":4: Error in applying operation '+nosuch'"; !strings.Contains(string(out), want) {
		t.Errorf("the error lacks %q:\n%s", want, out)
	}
}
