package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Opcodes of RDB files (src/rdb.h), besides OpFunction2.
const (
	opSlotInfo     = 244
	opModuleAux    = 247
	opIdle         = 248
	opFreq         = 249
	opAux          = 250
	opResizeDB     = 251
	opExpireTimeMS = 252
	opExpireTime   = 253
	opSelectDB     = 254
	opEOF          = 255
)

// Value types only skipped when reading a file.
const (
	typeModulePreGA = 6
	typeModule2     = 7
)

// Module value opcodes (RDB_MODULE_OPCODE_*).
const (
	moduleOpEOF    = 0
	moduleOpSInt   = 1
	moduleOpUInt   = 2
	moduleOpFloat  = 3
	moduleOpDouble = 4
	moduleOpString = 5
)

// MaxFileVersion is the newest RDB file version ReadFile reads (Redis 7.4's).
const MaxFileVersion = FieldTTLVersion

// Entry is one key read from an RDB file.
type Entry struct {
	DB  int
	Key []byte
	// Value is the key's value; unset for a skipped key.
	Value Object
	// ExpireMs is the key's absolute deadline in Unix ms, or -1 for none.
	ExpireMs int64
}

// Handler receives what ReadFile finds, in file order. Any callback may be
// nil. An error a callback returns stops the reading and is returned,
// wrapped.
type Handler struct {
	// Header reports the file's RDB version.
	Header func(version int) error
	// Aux reports an auxiliary field (redis-ver, ctime, used-mem, ...).
	Aux func(key, value []byte) error
	// SelectDB reports the database the following keys belong to.
	SelectDB func(db int) error
	// ResizeDB reports the sizes the file announces for the current
	// database; they are hints, not checked.
	ResizeDB func(keys, expires uint64) error
	// Key reports a key with a value this package decodes. The entry's
	// slices are only valid during the call.
	Key func(e *Entry) error
	// Skipped reports a key whose type is not decoded (a module type, by
	// its name); its bytes were read past.
	Skipped func(e *Entry, typeName string) error
	// Function reports a function library's code (FUNCTION LOAD's).
	Function func(code []byte) error
	// ModuleAux reports module data outside keys, skipped, by module name.
	ModuleAux func(module string) error
}

// FileError is an error of reading an RDB file, with the byte offset where
// the element that failed started.
type FileError struct {
	Offset int64
	What   string
	Err    error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("rdb file: %s at byte %d: %v", e.What, e.Offset, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads an RDB file from r, Redis's versions 1 to 12, and reports
// its contents to h one element at a time: memory holds one value, however
// large the file. It verifies the trailing checksum (a zero checksum means
// the writer had checksums off). A truncated or malformed file is an error
// wrapping ErrCorrupt (or io.ErrUnexpectedEOF) in a *FileError; the
// callbacks may already have seen the elements before the fault.
func ReadFile(r io.Reader, h *Handler) error {
	if h == nil {
		h = &Handler{}
	}
	s := &source{r: bufio.NewReaderSize(r, 64<<10)}
	return s.file(h)
}

// source reads a file, keeping its checksum and offset, and optionally
// copying what it reads into capture.
type source struct {
	r       *bufio.Reader
	crc     uint64
	off     int64
	capture []byte
	keep    bool
	discard []byte
	scratch [8]byte
}

func (s *source) fail(start int64, what string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	return &FileError{Offset: start, What: what, Err: err}
}

func (s *source) byte() (byte, error) {
	b, err := s.r.ReadByte()
	if err != nil {
		return 0, noEOF(err)
	}
	s.crc = CRC64(s.crc, []byte{b})
	s.off++
	if s.keep {
		s.capture = append(s.capture, b)
	}
	return b, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// small reads n ≤ 8 bytes into the scratch buffer.
func (s *source) small(n int) ([]byte, error) {
	p := s.scratch[:n]
	if _, err := io.ReadFull(s.r, p); err != nil {
		return nil, noEOF(err)
	}
	s.crc = CRC64(s.crc, p)
	s.off += int64(n)
	if s.keep {
		s.capture = append(s.capture, p...)
	}
	return p, nil
}

// skip reads n bytes, in chunks so that a claimed length costs only what
// the input really holds; captured when capturing, else discarded.
func (s *source) skip(n uint64) error {
	const chunk = 32 << 10
	for n > 0 {
		k := int(min(n, chunk))
		var p []byte
		if s.keep {
			s.capture = append(s.capture, make([]byte, k)...)
			p = s.capture[len(s.capture)-k:]
		} else {
			if s.discard == nil {
				s.discard = make([]byte, chunk)
			}
			p = s.discard[:k]
		}
		if _, err := io.ReadFull(s.r, p); err != nil {
			return noEOF(err)
		}
		s.crc = CRC64(s.crc, p)
		s.off += int64(k)
		n -= uint64(k)
	}
	return nil
}

func (s *source) readByte() (byte, error)         { return s.byte() }
func (s *source) readSmall(n int) ([]byte, error) { return s.small(n) }

func (s *source) length() (n uint64, encoded bool, err error) { return readLength(s) }

func (s *source) len() (uint64, error) {
	n, enc, err := s.length()
	if err == nil && enc {
		err = corrupt("encoded value where a length was expected")
	}
	return n, err
}

// skipString reads past (or captures) one RDB string in any encoding.
func (s *source) skipString() error {
	n, enc, err := s.length()
	if err != nil {
		return err
	}
	if !enc {
		return s.skip(n)
	}
	switch n {
	case encInt8:
		return s.skip(1)
	case encInt16:
		return s.skip(2)
	case encInt32:
		return s.skip(4)
	case encLZF:
		clen, err := s.len()
		if err != nil {
			return err
		}
		if _, err := s.len(); err != nil {
			return err
		}
		return s.skip(clen)
	}
	return corrupt("unknown string encoding %d", n)
}

// string reads one RDB string and decodes it.
func (s *source) string() ([]byte, error) {
	s.capture, s.keep = s.capture[:0], true
	err := s.skipString()
	s.keep = false
	if err != nil {
		return nil, err
	}
	return NewReader(s.capture).String()
}

func (s *source) strings(n uint64) error {
	for range n {
		if err := s.skipString(); err != nil {
			return err
		}
	}
	return nil
}

// skipValue reads past (or captures) a value of type t, following the
// structure each type's encoding has (rdbLoadObject's reading order).
func (s *source) skipValue(t byte) error {
	switch t {
	case TypeString, TypeSetIntset, TypeSetListpack, TypeListZiplist, TypeHashZiplist,
		TypeHashListpack, TypeZSetZiplist, TypeZSetListpack, TypeHashZipmap, TypeHashListpackExPreGA:
		return s.skipString()
	case TypeHashListpackEx:
		if err := s.skip(8); err != nil {
			return err
		}
		return s.skipString()
	case TypeList, TypeSet:
		n, err := s.len()
		if err != nil {
			return err
		}
		return s.strings(n)
	case TypeHash:
		n, err := s.len()
		if err != nil {
			return err
		}
		if n > 1<<62 {
			return corrupt("hash of %d fields", n)
		}
		return s.strings(2 * n)
	case TypeZSet, TypeZSet2:
		n, err := s.len()
		if err != nil {
			return err
		}
		for range n {
			if err := s.skipString(); err != nil {
				return err
			}
			if t == TypeZSet2 {
				err = s.skip(8)
			} else {
				var b byte
				if b, err = s.byte(); err == nil && b < 253 {
					err = s.skip(uint64(b))
				}
			}
			if err != nil {
				return err
			}
		}
		return nil
	case TypeListQuicklist, TypeListQuicklist2:
		n, err := s.len()
		if err != nil {
			return err
		}
		for range n {
			if t == TypeListQuicklist2 {
				if _, err := s.len(); err != nil {
					return err
				}
			}
			if err := s.skipString(); err != nil {
				return err
			}
		}
		return nil
	case TypeHashMetadata, TypeHashMetadataPreGA:
		if t == TypeHashMetadata {
			if err := s.skip(8); err != nil {
				return err
			}
		}
		n, err := s.len()
		if err != nil {
			return err
		}
		for range n {
			if _, err := s.len(); err != nil {
				return err
			}
			if err := s.strings(2); err != nil {
				return err
			}
		}
		return nil
	case TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3:
		return s.skipStream(t)
	case typeModule2:
		// The module id was read by the caller.
		return s.skipModuleValue()
	}
	return fmt.Errorf("%w %d", ErrUnsupportedType, t)
}

// skipStream reads past (or captures) a stream (rdbSaveObject's stream
// layout).
func (s *source) skipStream(t byte) error {
	n, err := s.len()
	if err != nil {
		return err
	}
	if err := s.strings(2 * min(n, 1<<62)); err != nil { // node key, listpack
		return err
	}
	lens := 3 // length, last id
	if t >= TypeStreamListpacks2 {
		lens += 5 // first id, max deleted id, entries added
	}
	if err := s.lens(lens); err != nil {
		return err
	}
	groups, err := s.len()
	if err != nil {
		return err
	}
	for range groups {
		if err := s.skipString(); err != nil { // name
			return err
		}
		k := 2 // last id
		if t >= TypeStreamListpacks2 {
			k++ // entries read
		}
		if err := s.lens(k); err != nil {
			return err
		}
		pel, err := s.len()
		if err != nil {
			return err
		}
		for range pel {
			if err := s.skip(16 + 8); err != nil { // id, delivery time
				return err
			}
			if _, err := s.len(); err != nil { // delivery count
				return err
			}
		}
		consumers, err := s.len()
		if err != nil {
			return err
		}
		for range consumers {
			if err := s.skipString(); err != nil {
				return err
			}
			times := uint64(8) // seen time
			if t >= TypeStreamListpacks3 {
				times += 8 // active time
			}
			if err := s.skip(times); err != nil {
				return err
			}
			cpel, err := s.len()
			if err != nil {
				return err
			}
			for range cpel {
				if err := s.skip(16); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *source) lens(n int) error {
	for range n {
		if _, err := s.len(); err != nil {
			return err
		}
	}
	return nil
}

// skipModuleValue reads past a module's self-describing value, up to its
// EOF opcode.
func (s *source) skipModuleValue() error {
	for {
		op, err := s.len()
		if err != nil {
			return err
		}
		switch op {
		case moduleOpEOF:
			return nil
		case moduleOpSInt, moduleOpUInt:
			_, err = s.len()
		case moduleOpFloat:
			err = s.skip(4)
		case moduleOpDouble:
			err = s.skip(8)
		case moduleOpString:
			err = s.skipString()
		default:
			err = corrupt("unknown module opcode %d", op)
		}
		if err != nil {
			return err
		}
	}
}

// moduleName decodes a module type id: nine characters of six bits each,
// then ten bits of encoding version.
func moduleName(id uint64) string {
	const charset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	id >>= 10
	for i := 8; i >= 0; i-- {
		name[i] = charset[id&63]
		id >>= 6
	}
	return string(name[:])
}

func (s *source) file(h *Handler) error {
	p := make([]byte, 9)
	if _, err := io.ReadFull(s.r, p); err != nil {
		return s.fail(0, "header", noEOF(err))
	}
	s.crc = CRC64(0, p)
	s.off = 9
	if !bytes.HasPrefix(p, []byte("REDIS")) {
		return s.fail(0, "header", corrupt("not an RDB file (no REDIS signature)"))
	}
	version, err := strconv.Atoi(string(p[5:]))
	if err != nil || version < 1 || version > MaxFileVersion {
		return s.fail(5, "header", corrupt("RDB version %q not supported", p[5:]))
	}
	if h.Header != nil {
		if err := h.Header(version); err != nil {
			return s.fail(0, "header", err)
		}
	}
	db := 0
	expire := int64(-1)
	for {
		start := s.off
		op, err := s.byte()
		if err != nil {
			return s.fail(start, "opcode", err)
		}
		switch op {
		case opEOF:
			if version < 5 {
				return nil
			}
			want := s.crc
			p, err := s.small(8)
			if err != nil {
				return s.fail(start, "checksum", err)
			}
			got := binary.LittleEndian.Uint64(p)
			if got != 0 && got != want {
				return s.fail(start, "checksum", corrupt("checksum %#x, computed %#x", got, want))
			}
			return nil
		case opSelectDB:
			n, err := s.len()
			if err == nil && n > 1<<31-1 {
				err = corrupt("database number %d", n)
			}
			if err == nil {
				db = int(n)
				if h.SelectDB != nil {
					err = h.SelectDB(db)
				}
			}
			if err != nil {
				return s.fail(start, "SELECTDB", err)
			}
		case opResizeDB:
			keys, err := s.len()
			var expires uint64
			if err == nil {
				expires, err = s.len()
			}
			if err == nil && h.ResizeDB != nil {
				err = h.ResizeDB(keys, expires)
			}
			if err != nil {
				return s.fail(start, "RESIZEDB", err)
			}
		case opSlotInfo:
			if err := s.lens(3); err != nil {
				return s.fail(start, "SLOT_INFO", err)
			}
		case opAux:
			key, err := s.string()
			if err == nil {
				key = bytes.Clone(key)
				var val []byte
				if val, err = s.string(); err == nil && h.Aux != nil {
					err = h.Aux(key, val)
				}
			}
			if err != nil {
				return s.fail(start, "AUX field", err)
			}
		case opExpireTimeMS:
			p, err := s.small(8)
			if err != nil {
				return s.fail(start, "EXPIRETIME_MS", err)
			}
			expire = int64(binary.LittleEndian.Uint64(p))
			if expire < 0 {
				// Before 1970, as Redis reads it: long past.
				expire = 0
			}
		case opExpireTime:
			p, err := s.small(4)
			if err != nil {
				return s.fail(start, "EXPIRETIME", err)
			}
			expire = max(int64(int32(binary.LittleEndian.Uint32(p)))*1000, 0)
		case opIdle:
			if _, err := s.len(); err != nil {
				return s.fail(start, "IDLE", err)
			}
		case opFreq:
			if _, err := s.byte(); err != nil {
				return s.fail(start, "FREQ", err)
			}
		case OpFunction2:
			code, err := s.string()
			if err == nil && h.Function != nil {
				err = h.Function(code)
			}
			if err != nil {
				return s.fail(start, "function library", err)
			}
		case OpFunctionPreGA:
			return s.fail(start, "function library", ErrPreGA)
		case opModuleAux:
			id, err := s.len()
			if err == nil {
				err = s.lens(2) // when opcode, when
			}
			if err == nil {
				err = s.skipModuleValue()
			}
			if err == nil && h.ModuleAux != nil {
				err = h.ModuleAux(moduleName(id))
			}
			if err != nil {
				return s.fail(start, "module aux data", err)
			}
		default:
			if err := s.key(h, op, db, expire); err != nil {
				return s.fail(start, "key", err)
			}
			expire = -1
		}
	}
}

// key reads one key of type t and its value, and reports it.
func (s *source) key(h *Handler, t byte, db int, expire int64) error {
	key, err := s.string()
	if err != nil {
		return err
	}
	e := &Entry{DB: db, Key: bytes.Clone(key), ExpireMs: expire}
	skipped := ""
	switch t {
	case typeModulePreGA:
		return fmt.Errorf("%w: module value of the pre-GA format", ErrUnsupportedType)
	case typeModule2:
		id, err := s.len()
		if err != nil {
			return err
		}
		skipped = moduleName(id)
	}
	if skipped != "" {
		if err := s.skipValue(t); err != nil {
			return fmt.Errorf("%s value of key %q: %w", skipped, e.Key, err)
		}
		if h.Skipped != nil {
			return h.Skipped(e, skipped)
		}
		return nil
	}
	s.capture, s.keep = s.capture[:0], true
	err = s.skipValue(t)
	s.keep = false
	if err != nil {
		return fmt.Errorf("value of key %q: %w", e.Key, err)
	}
	o, err := NewReader(s.capture).value(t)
	if err == nil {
		err = o.check()
	}
	if err != nil {
		return fmt.Errorf("value of key %q: %w", e.Key, err)
	}
	e.Value = o
	if h.Key != nil {
		err = h.Key(e)
	}
	if cap(s.capture) > 4<<20 {
		// A large value's buffer is not kept for the small ones after it.
		s.capture = nil
	}
	return err
}
