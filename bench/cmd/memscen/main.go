// Command memscen measures a server's resident memory (VmRSS of -pid)
// before, during and after one allocation-heavy scenario, and another
// client's GET latency while it runs (issue 27, item 10):
//
//	script  EVAL building a 1 GiB string by s = s .. s
//	concat  EVAL building a 1 GiB string with table.concat
//	multi   MULTI, -n pipelined SETs, EXEC (then FLUSHALL)
//	conns   -n connections opened, each PINGed, then closed
//
// Run it against Cairn and redis-server started with the same limits, e.g.
//
//	memscen -addr 127.0.0.1:7701 -pid $(pidof cairn) -s multi -n 1000000
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			kb, _ := strconv.Atoi(f[1])
			return fmt.Sprintf("%d MB", kb/1024)
		}
	}
	return "?"
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the server's address")
	pid := flag.Int("pid", 0, "the server's process id, for its VmRSS")
	scen := flag.String("s", "script", "script|concat|multi|conns")
	n := flag.Int("n", 1000000, "commands (multi) or connections (conns)")
	flag.Parse()
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: *addr, ReadTimeout: -1, WriteTimeout: -1})
	c.Set(ctx, "k", "v", 0)
	fmt.Printf("%s start rss %s\n", *scen, rss(*pid))
	var stop atomic.Bool
	var wg sync.WaitGroup
	var maxLat time.Duration
	var slow, gets int
	wg.Add(1)
	go func() {
		defer wg.Done()
		g := redis.NewClient(&redis.Options{Addr: *addr})
		for !stop.Load() {
			t := time.Now()
			g.Get(ctx, "k")
			d := time.Since(t)
			gets++
			if d > maxLat {
				maxLat = d
			}
			if d > 100*time.Millisecond {
				slow++
			}
			time.Sleep(time.Millisecond)
		}
	}()
	t0 := time.Now()
	switch *scen {
	case "script":
		r, err := c.Eval(ctx, "local s = string.rep('x', 1048576) for i = 1, 10 do s = s .. s end return #s", nil).Result()
		fmt.Println("  reply", r, err)
	case "concat":
		r, err := c.Eval(ctx, "local t = {} for i = 1, 1024 do t[i] = string.rep('x', 1048576) end local s = table.concat(t) return #s", nil).Result()
		fmt.Println("  reply", r, err)
	case "multi":
		conn, err := net.Dial("tcp", *addr)
		if err != nil {
			panic(err)
		}
		go func() {
			w := bufio.NewWriterSize(conn, 1<<16)
			w.WriteString("*1\r\n$5\r\nMULTI\r\n")
			for i := 0; i < *n; i++ {
				k := "key:" + strconv.Itoa(i)
				fmt.Fprintf(w, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\nvalue\r\n", len(k), k)
			}
			w.WriteString("*1\r\n$4\r\nEXEC\r\n")
			w.Flush()
		}()
		r := bufio.NewReaderSize(conn, 1<<16)
		// +OK, n x +QUEUED, then *n and n replies.
		lines := 0
		want := 1 + *n + 1 + *n
		for lines < want {
			if _, err := r.ReadSlice('\n'); err != nil {
				panic(err)
			}
			lines++
		}
		conn.Close()
		fmt.Println("  exec done")
	case "conns":
		conns := make([]net.Conn, 0, *n)
		for i := 0; i < *n; i++ {
			cn, err := net.Dial("tcp", *addr)
			if err != nil {
				fmt.Println("  dial", i, err)
				break
			}
			cn.Write([]byte("*1\r\n$4\r\nPING\r\n"))
			conns = append(conns, cn)
		}
		buf := make([]byte, 16)
		for _, cn := range conns {
			cn.Read(buf)
		}
		fmt.Printf("  %d open, rss %s\n", len(conns), rss(*pid))
		for _, cn := range conns {
			cn.Close()
		}
	}
	fmt.Printf("  took %v, peak-ish rss %s\n", time.Since(t0).Round(time.Millisecond), rss(*pid))
	stop.Store(true)
	wg.Wait()
	fmt.Printf("  other client: %d GETs, max %v, %d over 100ms\n", gets, maxLat.Round(time.Millisecond), slow)
	if *scen == "multi" {
		c.FlushAll(ctx)
	}
	for _, s := range []int{1, 5, 15} {
		time.Sleep(time.Duration(s) * time.Second)
		fmt.Printf("  +%ds rss %s\n", int(time.Since(t0).Seconds()), rss(*pid))
	}
}
