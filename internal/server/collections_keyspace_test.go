package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The keyspace commands work on every collection type: TYPE, COPY (to
// another db too), RENAME, MOVE, EXPIRE, SCAN TYPE, and a collection
// emptied by a command disappears.
func TestKeyspaceCommandsOnCollections(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(c.HSet(ctx, "h", "f1", "v1", "f2", "v2").Err())
		must(c.HPExpire(ctx, "h", time.Hour, "f1").Err())
		must(c.SAdd(ctx, "s", "a", "b", "c").Err())
		must(c.RPush(ctx, "l", "x", "y", "z").Err())
		must(c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "m1"}, redis.Z{Score: 2, Member: "m2"}).Err())
		for k, typ := range map[string]string{"h": "hash", "s": "set", "l": "list", "z": "zset"} {
			if got := c.Type(ctx, k).Val(); got != typ {
				t.Fatalf("TYPE %s = %q, want %q", k, got, typ)
			}
			if n := c.Copy(ctx, k, k+"-copy", 3, false).Val(); n != 1 {
				t.Fatalf("COPY %s DB 3 = %d", k, n)
			}
			must(c.Rename(ctx, k, k+"2").Err())
			if n := c.Move(ctx, k+"2", 1).Val(); !n {
				t.Fatalf("MOVE %s2 1 failed", k)
			}
		}
		check := func(db int, suffix string) {
			t.Helper()
			must(c.Do(ctx, "SELECT", db).Err())
			if got := c.HGetAll(ctx, "h"+suffix).Val(); len(got) != 2 || got["f1"] != "v1" {
				t.Fatalf("db %d hash: %v", db, got)
			}
			if ttl := c.HTTL(ctx, "h"+suffix, "f1").Val(); len(ttl) != 1 || ttl[0] <= 0 {
				t.Fatalf("db %d hash field TTL lost: %v", db, ttl)
			}
			got := c.SMembers(ctx, "s"+suffix).Val()
			slices.Sort(got)
			if !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Fatalf("db %d set: %v", db, got)
			}
			if got := c.LRange(ctx, "l"+suffix, 0, -1).Val(); !slices.Equal(got, []string{"x", "y", "z"}) {
				t.Fatalf("db %d list: %v", db, got)
			}
			if got := c.ZRangeWithScores(ctx, "z"+suffix, 0, -1).Val(); len(got) != 2 || got[1].Member != "m2" || got[1].Score != 2 {
				t.Fatalf("db %d zset: %v", db, got)
			}
		}
		check(3, "-copy")
		check(1, "2")
		keys, _, err := c.ScanType(ctx, 0, "", 100, "zset").Result()
		if err != nil || !slices.Equal(keys, []string{"z2"}) {
			t.Fatalf("SCAN TYPE zset in db 1 = %v, %v", keys, err)
		}
		// Emptied collections disappear.
		must(c.SRem(ctx, "s2", "a", "b", "c").Err())
		must(c.LPop(ctx, "l2").Err())
		must(c.LTrim(ctx, "l2", 1, 0).Err())
		must(c.ZRemRangeByRank(ctx, "z2", 0, -1).Err())
		must(c.HDel(ctx, "h2", "f1", "f2").Err())
		if n := c.Exists(ctx, "s2", "l2", "z2", "h2").Val(); n != 0 {
			t.Fatalf("EXISTS after emptying = %d", n)
		}
		if n := c.DBSize(ctx).Val(); n != 0 {
			t.Fatalf("DBSIZE after emptying = %d", n)
		}
		// A collection under an expiry disappears with it, sub-keys and all.
		must(c.Do(ctx, "SELECT", 3).Err())
		must(c.PExpire(ctx, "z-copy", 20*time.Millisecond).Err())
		deadline := time.Now().Add(3 * time.Second)
		for c.Exists(ctx, "z-copy").Val() != 0 || c.DBSize(ctx).Val() != 3 {
			if time.Now().After(deadline) {
				t.Fatalf("expired zset still there: DBSIZE %d", c.DBSize(ctx).Val())
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
