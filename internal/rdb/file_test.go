package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// fileContents is everything ReadFile reported, for the tests.
type fileContents struct {
	version   int
	aux       map[string]string
	dbs       []int
	keys      map[string]Entry // "db/key"
	skipped   map[string]string
	functions []string
}

func readAll(t testing.TB, data []byte) (*fileContents, error) {
	c := &fileContents{aux: map[string]string{}, keys: map[string]Entry{}, skipped: map[string]string{}}
	err := ReadFile(bytes.NewReader(data), &Handler{
		Header: func(v int) error { c.version = v; return nil },
		Aux:    func(k, v []byte) error { c.aux[string(k)] = string(v); return nil },
		SelectDB: func(db int) error {
			c.dbs = append(c.dbs, db)
			return nil
		},
		Key: func(e *Entry) error {
			c.keys[fmt.Sprintf("%d/%s", e.DB, e.Key)] = cloneEntry(*e)
			return nil
		},
		Skipped: func(e *Entry, name string) error {
			c.skipped[fmt.Sprintf("%d/%s", e.DB, e.Key)] = name
			return nil
		},
		Function: func(code []byte) error { c.functions = append(c.functions, string(code)); return nil },
	})
	return c, err
}

// cloneEntry copies an entry out of the buffers ReadFile reuses.
func cloneEntry(e Entry) Entry {
	e.Value = e.Value.Clone()
	return e
}

// testdata/redis70-all.rdb was written by Redis 7.0.15's SAVE after
// filling it with every type (see the expectations below for the recipe).
func TestReadFileFromRedis70(t *testing.T) {
	data, err := os.ReadFile("testdata/redis70-all.rdb")
	if err != nil {
		t.Fatal(err)
	}
	c, err := readAll(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if c.version != 10 || c.aux["redis-ver"] != "7.0.15" {
		t.Fatalf("version %d, redis-ver %q", c.version, c.aux["redis-ver"])
	}
	if !reflect.DeepEqual(c.dbs, []int{0, 3}) {
		t.Fatalf("databases %v", c.dbs)
	}
	if len(c.keys) != 19 || len(c.skipped) != 0 {
		t.Fatalf("%d keys, skipped %v", len(c.keys), c.skipped)
	}
	// The stream: two entries, a group with one pending entry.
	st := factsOf(c.keys["0/st"].Value.Stream)
	if got := fmt.Sprintf("%v %s %s %d %v", st.Entries, st.LastID, st.FirstID, st.EntriesAdded, st.Groups[0].Consumers); got != "[[1-1 a 1] [2-1 b 2]] 2-1 1-1 2 [c1 1795671275993 1-1]" {
		t.Errorf("stream st = %s", got)
	}
	if len(c.functions) != 1 || !strings.HasPrefix(c.functions[0], "#!lua name=mylib") {
		t.Fatalf("functions %q", c.functions)
	}
	str := func(k, want string) {
		t.Helper()
		e := c.keys[k]
		if e.Value.Kind != KindString || string(e.Value.String) != want {
			t.Errorf("%s = %v %q, want %q", k, e.Value.Kind, e.Value.String, want)
		}
	}
	str("0/s1", "hello")
	str("0/n1", "12345")
	str("0/neg", "-7")
	str("0/big", "4000000000")
	str("0/lzf", strings.Repeat("abcdefgh", 40))
	str("3/db3key", "x")
	// Deadlines: set relative to the SAVE time, which the file records.
	saved := c.aux["ctime"]
	for k, ttl := range map[string]int64{"0/ttl1": 99999999, "0/hbig": 100000 * 1000, "3/db3ttl": 50000 * 1000} {
		e := c.keys[k]
		var ctime int64
		fmt.Sscan(saved, &ctime)
		if d := e.ExpireMs - ctime*1000 - ttl; d < -5000 || d > 5000 {
			t.Errorf("%s expires at %d, ctime %d, ttl %d", k, e.ExpireMs, ctime, ttl)
		}
	}
	if e := c.keys["0/s1"]; e.ExpireMs != -1 {
		t.Errorf("s1 expires at %d", e.ExpireMs)
	}
	items := func(k string, kind Kind, want []string) {
		t.Helper()
		o := c.keys[k].Value
		got := o.Items
		if kind == KindHash {
			got = o.Pairs
		}
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if o.Kind != kind || !reflect.DeepEqual(sortedIf(kind != KindList, gs), sortedIf(kind != KindList, want)) {
			t.Errorf("%s = %v %q, want %q", k, o.Kind, gs, want)
		}
	}
	var lbig, sbig, hbig []string
	for i := 1; i <= 200; i++ {
		lbig = append(lbig, fmt.Sprintf("item-%d-%s", i, strings.Repeat("x", max(1, i%7)))) // the recipe wrote "x" for 0
		sbig = append(sbig, fmt.Sprintf("m%d", i))
		hbig = append(hbig, fmt.Sprintf("f%d", i), fmt.Sprintf("v%d", i))
	}
	items("0/l1", KindList, []string{"a", "b", "1", "2", "300"})
	items("0/lbig", KindList, lbig)
	items("3/db3list", KindList, []string{"q"})
	items("0/si", KindSet, []string{"1", "2", "3", "70000", "-5"})
	items("0/sl", KindSet, []string{"a", "b", "c"})
	items("0/sbig", KindSet, sbig)
	items("0/h1", KindHash, []string{"f1", "v1", "f2", "2"})
	if o := c.keys["0/hbig"].Value; len(o.Pairs) != 400 {
		t.Errorf("hbig has %d entries", len(o.Pairs))
	}
	if o := c.keys["0/z1"].Value; !reflect.DeepEqual(o.ZSet, []ScoredMember{{[]byte("c"), math.Inf(-1)}, {[]byte("a"), 1}, {[]byte("b"), 2.5}}) {
		t.Errorf("z1 = %v", o.ZSet)
	}
	if o := c.keys["0/zbig"].Value; len(o.ZSet) != 200 {
		t.Errorf("zbig has %d members", len(o.ZSet))
	}
}

func sortedIf(sortIt bool, s []string) []string {
	if !sortIt {
		return s
	}
	out := append([]string(nil), s...)
	// Insertion sort: small inputs, no extra import.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Every key of a file a live Redis writes decodes to what DUMP of the same
// key decodes to, and its deadline matches PEXPIRETIME.
func TestReadFileMatchesRedisDump(t *testing.T) {
	r := redistest.Start(t)
	do := func(args ...any) any {
		t.Helper()
		for i, a := range args {
			if _, ok := a.([]byte); !ok {
				args[i] = fmt.Sprint(a)
			}
		}
		v, err := r.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	do("SET", "plain", "v")
	do("SET", "long", strings.Repeat("0123456789", 300), "PX", 500000)
	do("RPUSH", "list", "a", "b", strings.Repeat("z", 9000))
	do("SADD", "ints", 5, 6, -100000)
	do("ZADD", "zs", 1.5, "x", "+inf", "y")
	do("HSET", "hash", "a", "1", "b", "2")
	for i := range 300 {
		do("RPUSH", "biglist", i)
		do("SADD", "bigset", fmt.Sprintf("member%d", i))
		do("ZADD", "bigz", i, fmt.Sprintf("m%d", i))
		do("HSET", "bighash", fmt.Sprintf("f%d", i), strings.Repeat("v", i))
	}
	do("SELECT", 9)
	do("SET", "in9", "nine", "EX", 1000)
	do("SAVE")
	dir := do("CONFIG", "GET", "dir").([]any)[1].([]byte)
	data, err := os.ReadFile(filepath.Join(string(dir), "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := readAll(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.keys) != 11 {
		t.Fatalf("%d keys read: %v", len(c.keys), c.keys)
	}
	for name, e := range c.keys {
		do("SELECT", e.DB)
		payload := do("DUMP", e.Key).([]byte)
		want, err := DecodeValue(payload)
		if err != nil {
			t.Fatalf("%s: DUMP does not decode: %v", name, err)
		}
		if !reflect.DeepEqual(e.Value, want) {
			t.Errorf("%s: file has %+v, DUMP %+v", name, e.Value, want)
		}
		if pt := do("PEXPIRETIME", e.Key).(int64); pt != e.ExpireMs {
			t.Errorf("%s: file deadline %d, PEXPIRETIME %d", name, e.ExpireMs, pt)
		}
	}
}

func TestReadFileBadInput(t *testing.T) {
	data, err := os.ReadFile("testdata/redis70-all.rdb")
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation fails, as a FileError.
	for n := range len(data) {
		_, err := readAll(t, data[:n])
		var fe *FileError
		if err == nil || (n >= 9 && !errors.As(err, &fe)) {
			t.Fatalf("truncated at %d: %v", n, err)
		}
	}
	// Every flipped byte in the body fails (checksum at the latest).
	for i := 9; i < len(data)-8; i += 7 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x5a
		if _, err := readAll(t, bad); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
	// A zero checksum means checksums were off: accepted.
	zero := bytes.Clone(data)
	binary.LittleEndian.PutUint64(zero[len(zero)-8:], 0)
	if _, err := readAll(t, zero); err != nil {
		t.Fatalf("zero checksum: %v", err)
	}
	cases := map[string][]byte{
		"signature":     []byte("RADIS0010\xff"),
		"version 13":    []byte("REDIS0013\xff"),
		"version text":  []byte("REDIS00x1\xff"),
		"pre-GA module": append([]byte("REDIS0010\x06\x01k"), 0),
		// A string that claims a terabyte, then ends.
		"huge string": append([]byte("REDIS0010\x00\x01k\x81"), 0, 0, 1, 0, 0, 0, 0, 0, 'a'),
		"huge list":   append([]byte("REDIS0010\x01\x01k\x81"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 'a'),
		"empty list":  []byte("REDIS0010\x01\x01k\x00\xff\x00\x00\x00\x00\x00\x00\x00\x00"),
		"bad type":    []byte("REDIS0010\x63\x01k\x00"),
	}
	for name, in := range cases {
		start := time.Now()
		if _, err := readAll(t, in); err == nil {
			t.Errorf("%s: no error", name)
		} else if time.Since(start) > 2*time.Second {
			t.Errorf("%s: took %v", name, time.Since(start))
		}
	}
	// An error from a callback stops the reading and is returned.
	stop := errors.New("stop here")
	err = ReadFile(bytes.NewReader(data), &Handler{Key: func(*Entry) error { return stop }})
	if !errors.Is(err, stop) {
		t.Fatalf("callback error: %v", err)
	}
}

func TestModuleName(t *testing.T) {
	// A module type id packs nine 6-bit characters above a 10-bit version.
	const charset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var id uint64
	for _, ch := range "ReJSON-RL" {
		id = id<<6 | uint64(strings.IndexRune(charset, ch))
	}
	id = id<<10 | 3
	if got := moduleName(id); got != "ReJSON-RL" {
		t.Fatalf("moduleName = %q", got)
	}
	// A module value is skipped and reported by name.
	body := []byte("REDIS0010\x07\x01k")
	body = AppendLength(body, id)
	body = append(body, moduleOpUInt, 5, moduleOpString, 2, 'h', 'i', moduleOpDouble, 0, 0, 0, 0, 0, 0, 0, 0, moduleOpEOF)
	body = append(body, TypeString, 1, 'j', 1, 'v', opEOF)
	body = binary.LittleEndian.AppendUint64(body, CRC64(0, body))
	c, err := readAll(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.skipped["0/k"] != "ReJSON-RL" || string(c.keys["0/j"].Value.String) != "v" {
		t.Fatalf("skipped %v, keys %v", c.skipped, c.keys)
	}
}

func FuzzReadFile(f *testing.F) {
	data, err := os.ReadFile("testdata/redis70-all.rdb")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("REDIS0011\xff\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		err := ReadFile(bytes.NewReader(b), &Handler{Key: func(e *Entry) error {
			n++
			return e.Value.check()
		}})
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, io.ErrUnexpectedEOF) &&
			!errors.Is(err, ErrUnsupportedType) && !errors.Is(err, ErrPreGA) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}

// What FileWriter writes, ReadFile reads back the same, and Redis's own
// checker accepts it.
func TestFileWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFileWriter(&buf, [][2]string{{"redis-ver", "7.0.15"}, {"redis-bits", "64"}})
	fw.Function([]byte("#!lua name=l\nredis.register_function('f', function() return 1 end)"))
	want := map[string]Entry{
		"0/s":  {DB: 0, Key: []byte("s"), Value: Object{Kind: KindString, String: []byte("v")}, ExpireMs: -1},
		"0/l":  {DB: 0, Key: []byte("l"), Value: Object{Kind: KindList, Items: [][]byte{[]byte("a"), []byte("b")}}, ExpireMs: 1 << 50},
		"2/st": {DB: 2, Key: []byte("st"), Value: Object{Kind: KindSet, Items: [][]byte{[]byte("x")}}, ExpireMs: -1},
		"2/z":  {DB: 2, Key: []byte("z"), Value: Object{Kind: KindZSet, ZSet: []ScoredMember{{[]byte("m"), 1.5}}}, ExpireMs: -1},
		"2/h":  {DB: 2, Key: []byte("h"), Value: Object{Kind: KindHash, Pairs: [][]byte{[]byte("f"), []byte("v")}}, ExpireMs: 1234567890123},
		"2/x": {DB: 2, Key: []byte("x"), ExpireMs: -1, Value: Object{Kind: KindStream, Stream: &Stream{
			Entries: []StreamEntry{{ID: StreamID{1, 1}, Fields: strs("a", "1")}, {ID: StreamID{2, 0}, Fields: strs("a", "2")}},
			LastID:  StreamID{2, 0}, FirstID: StreamID{1, 1}, EntriesAdded: 2,
			Groups: []StreamGroup{{Name: []byte("g"), LastID: StreamID{2, 0}, EntriesRead: 2,
				Pending:   []StreamPending{{ID: StreamID{2, 0}, DeliveryMs: 1_700_000_000_000, Count: 2, Consumer: []byte("c")}},
				Consumers: []StreamConsumer{{Name: []byte("c"), SeenMs: 1_700_000_000_001, ActiveMs: 1_700_000_000_001}}}},
		}}},
	}
	fw.SelectDB(0, 2, 1)
	for _, k := range []string{"0/s", "0/l"} {
		e := want[k]
		fw.Key(e.Key, e.Value, e.ExpireMs)
	}
	fw.SelectDB(2, 4, 1)
	for _, k := range []string{"2/st", "2/z", "2/h", "2/x"} {
		e := want[k]
		fw.Key(e.Key, e.Value, e.ExpireMs)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := readAll(t, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if c.version != FileVersion || !reflect.DeepEqual(c.keys, want) || len(c.functions) != 1 {
		t.Fatalf("read back version %d %+v %q", c.version, c.keys, c.functions)
	}
	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		file := filepath.Join(t.TempDir(), "dump.rdb")
		os.WriteFile(file, buf.Bytes(), 0o644)
		out, err := exec.Command(check, file).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
}

// A deadline before 1970 reads as long past, never as "no deadline".
func TestReadFileNegativeDeadline(t *testing.T) {
	for _, op := range [][]byte{
		{opExpireTimeMS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		{opExpireTime, 0xff, 0xff, 0xff, 0xff},
	} {
		body := append([]byte("REDIS0010"), op...)
		body = append(body, TypeString, 1, 'k', 1, 'v', opEOF)
		body = binary.LittleEndian.AppendUint64(body, CRC64(0, body))
		c, err := readAll(t, body)
		if err != nil {
			t.Fatal(err)
		}
		if e := c.keys["0/k"]; e.ExpireMs != 0 {
			t.Fatalf("opcode %d: deadline %d", op[0], e.ExpireMs)
		}
	}
}
