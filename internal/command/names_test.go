package command

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"no flags", Flag(0).Names(), nil},
		{"flags in Redis order", (MovableKeys | Write | Fast | ReadOnly | LockAll).Names(), []string{"write", "readonly", "fast", "movablekeys"}},
		{"every flag", (^Flag(0)).Names(), []string{
			"write", "readonly", "denyoom", "admin", "pubsub", "noscript", "blocking", "loading",
			"stale", "skip_monitor", "skip_slowlog", "asking", "fast", "no_auth", "may_replicate",
			"no_mandatory_keys", "no_async_loading", "no_multi", "movablekeys", "allow_busy",
		}},
		{"every category", (^Category(0)).Names(), []string{
			"@keyspace", "@read", "@write", "@set", "@sortedset", "@list", "@hash", "@string",
			"@bitmap", "@hyperloglog", "@geo", "@stream", "@pubsub", "@admin", "@fast", "@slow",
			"@blocking", "@dangerous", "@connection", "@transaction", "@scripting",
		}},
		{"every key flag", (^KeyFlag(0)).Names(), []string{
			"RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
			"incomplete", "variable_flags",
		}},
		{"doc flags", (DocSysCmd | DocDeprecated).Names(), []string{"deprecated", "syscmd"}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestCategoryByName(t *testing.T) {
	tests := []struct {
		name string
		want Category
		ok   bool
	}{
		{"string", CatString, true},
		{"SortedSet", CatSortedSet, true},
		{"keyspace", CatKeyspace, true},
		{"scripting", CatScripting, true},
		{"@string", 0, false},
		{"", 0, false},
		{"strings", 0, false},
		{"ſtring", 0, false},
		{"string\x00", CatString, true},
		{"String\x00junk", CatString, true},
		{"\x00string", 0, false},
	}
	for _, tt := range tests {
		got, ok := CategoryByName(tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CategoryByName(%q) = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
