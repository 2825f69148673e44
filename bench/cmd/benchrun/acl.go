package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
)

// The acl scenario (issue 22): what ACL checks cost on every command. GET
// and SET, unpipelined and at -P 16, run twice on each server: as the
// default user allowed everything (which Cairn checks with one pointer
// load), and as a restricted user, whose commands go through the command
// bitset and whose keys are matched against its patterns. The restricted
// user is the default one with its rules narrowed (aclRestricted), so that
// the load generator's connections need no AUTH and the harness's own
// commands (FLUSHALL, CONFIG, INFO) still run; each workload's Prefill sets
// the rules it measures.

const aclScenario = "acl"

// aclRestricted are the default user's rules for the restricted runs: every
// command but a few (so no all-commands shortcut), keys only under the
// benchmark's prefixes, with read and write patterns apart, no channels.
var aclRestricted = []string{"reset", "on", "nopass", "+@all", "-swapdb", "-keys", "resetchannels",
	"%R~key:*", "%W~key:*", "~cairn-bench:*", "%R~other:*"}

// aclUnrestricted are the default user's initial rules.
var aclUnrestricted = []string{"reset", "on", "nopass", "+@all", "~*", "&*"}

var aclWorkloads = []workload{
	{Name: "SET_DEFAULT_USER", Group: aclScenario, Probe: []any{"ACL", "WHOAMI"}, Prefill: aclPrefill(aclUnrestricted, false), Run: runOp(aclSetOp)},
	{Name: "GET_DEFAULT_USER", Group: aclScenario, Probe: []any{"ACL", "WHOAMI"}, Prefill: aclPrefill(aclUnrestricted, true), Run: runOp(aclGetOp)},
	{Name: "SET_ACL_USER", Group: aclScenario, Probe: []any{"ACL", "WHOAMI"}, Prefill: aclPrefill(aclRestricted, false), Run: runOp(aclSetOp)},
	{Name: "GET_ACL_USER", Group: aclScenario, Probe: []any{"ACL", "WHOAMI"}, Prefill: aclPrefill(aclRestricted, true), Run: runOp(aclGetOp)},
}

// aclDescriptions say what each workload of the scenario sends.
var aclDescriptions = map[string]string{
	"SET_DEFAULT_USER": "`SET key:<random> <value>` as the default user allowed everything",
	"GET_DEFAULT_USER": "`GET key:<random>` (keys prefilled) as the default user allowed everything",
	"SET_ACL_USER":     "`SET key:<random> <value>` as a user with rules `" + strings.Join(aclRestricted[1:], " ") + "`",
	"GET_ACL_USER":     "`GET key:<random>` as that restricted user",
}

// aclPrefill sets the default user's rules, then, for GET, fills the
// keyspace.
func aclPrefill(rules []string, fill bool) func(context.Context, *redis.Client, settings, int) error {
	return func(ctx context.Context, c *redis.Client, s settings, n int) error {
		args := []any{"ACL", "SETUSER", "default"}
		for _, r := range rules {
			args = append(args, r)
		}
		if err := c.Do(ctx, args...).Err(); err != nil {
			return fmt.Errorf("ACL SETUSER default: %w", err)
		}
		if !fill {
			return nil
		}
		return prefillStrings(ctx, c, s, n)
	}
}

func aclSetOp(s settings) loadgen.Op {
	value := strings.Repeat("x", s.DataSize)
	return loadgen.Op{
		Name:    "SET",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "SET", randKey(rng, s.Keyspace), value)
		},
		Check: func(_ int, r loadgen.Reply) error {
			if r.Type != '+' || string(r.Str) != "OK" {
				return fmt.Errorf("SET gave %s", r)
			}
			return nil
		},
	}
}

func aclGetOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "GET",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "GET", randKey(rng, s.Keyspace))
		},
		Check: func(_ int, r loadgen.Reply) error {
			if r.Type != '$' || r.Null {
				return fmt.Errorf("GET gave %s, want a value", r)
			}
			return nil
		},
	}
}

// writeACLIntro says what the acl scenario's workloads send.
func writeACLIntro(b *strings.Builder) {
	b.WriteString("Each workload as Cairn's load generator sends it (the same for both servers):\n\n")
	for _, w := range aclWorkloads {
		fmt.Fprintf(b, "- %s: %s\n", w.Name, aclDescriptions[w.Name])
	}
	b.WriteString("\nThe restricted user is the default user with those rules, set before each run, so that the connections need no AUTH.\n\n")
}

// writeACLCost is the cost of the checks: each server's ops/s as the
// restricted user over its ops/s as the default user (the target:
// within 5% for Cairn, that is ≥ 0.95×).
func writeACLCost(b *strings.Builder, mr *matrixResult, pipelines []int) {
	median := mr.medians
	b.WriteString("Restricted user / default user, ops/s (median over the rounds; the target is ≥ 0.95× for Cairn):\n\n")
	b.WriteString("| command | -P | Cairn | Redis |\n|---|---:|---:|---:|\n")
	for _, pl := range pipelines {
		for _, op := range []string{"SET", "GET"} {
			rd, cd := median(pl, op+"_DEFAULT_USER")
			ra, ca := median(pl, op+"_ACL_USER")
			fmt.Fprintf(b, "| %s | %d | %s | %s |\n", op, pl, fmtRatio(ca/cd), fmtRatio(ra/rd))
		}
	}
	b.WriteString("\n")
}
