package notify

import "testing"

// The expected strings are what Redis 7's CONFIG GET answers after CONFIG
// SET notify-keyspace-events <in>.
func TestParseAndString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"An", "A"},
		{"KEA", "AKE"},
		{"Kn", "nK"},
		{"Em", "Em"},
		{"$lsh", "$lsh"},
		{"gx", "gx"},
		{"KEAmn", "AKEm"},
		{"g$lshzxetd", "A"},
		{"Kgn", "gnK"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got := c.String(); got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"Q", "K E", "a"} {
		if _, err := Parse(bad); err != ErrInvalid {
			t.Errorf("Parse(%q) err = %v", bad, err)
		}
	}
}

func TestPublishes(t *testing.T) {
	c, _ := Parse("Kl")
	if !c.Publishes(List) || c.Publishes(Set) {
		t.Fatal("Kl publishes list and only list events")
	}
	c, _ = Parse("l")
	if c.Publishes(List) {
		t.Fatal("without K or E nothing is published")
	}
}

func TestChannels(t *testing.T) {
	if got := string(AppendKeyspaceChannel(nil, 3, []byte("k"))); got != "__keyspace@3__:k" {
		t.Fatal(got)
	}
	if got := string(AppendKeyeventChannel(nil, 0, "del")); got != "__keyevent@0__:del" {
		t.Fatal(got)
	}
}
