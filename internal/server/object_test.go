package server

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestObjectIdleTimeCountsFromLastAccess(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		idle, err := c.ObjectIdleTime(ctx, "k").Result()
		if err != nil || idle != 0 {
			t.Fatalf("OBJECT IDLETIME right after SET = %v, %v", idle, err)
		}
		if err := c.ObjectIdleTime(ctx, "missing").Err(); err != redis.Nil {
			t.Fatalf("OBJECT IDLETIME of a missing key: %v", err)
		}
		if err := c.Do(ctx, "OBJECT", "IDLETIME").Err(); err == nil || err.Error() != "ERR wrong number of arguments for 'object|idletime' command" {
			t.Fatalf("arity error: %v", err)
		}
	})
}
