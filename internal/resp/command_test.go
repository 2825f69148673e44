package resp

import "testing"

func TestAppendCommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "*0\r\n"},
		{[]string{"PING"}, "*1\r\n$4\r\nPING\r\n"},
		{[]string{"SET", "", "a\r\nb"}, "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$4\r\na\r\nb\r\n"},
	} {
		if got := string(AppendCommand([]byte("x"), tt.args...)); got != "x"+tt.want {
			t.Errorf("AppendCommand(%q) = %q, want %q", tt.args, got, "x"+tt.want)
		}
		bs := make([][]byte, len(tt.args))
		for i, a := range tt.args {
			bs[i] = []byte(a)
		}
		if got := string(AppendCommand(nil, bs...)); got != tt.want {
			t.Errorf("AppendCommand(bytes %q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
