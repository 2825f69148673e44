package server

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// sockIO reads and writes a client's socket with raw system calls, through
// the poller Go already keeps for the connection.
//
// net.Conn enters every read and write as a blocking system call: the
// runtime marks the processor as in a system call, and its monitor thread,
// which then wakes every 20 µs, hands the processor to another thread when
// a call spans one of its ticks. A read or write on a non-blocking socket
// never blocks; it takes microseconds. Made raw, it keeps its processor,
// the monitor finds nothing to take and sleeps longer, and the hand-offs
// and thread switches go away (see bench/RESULTS.md, session 7). Waiting
// for the socket still goes through the runtime's poller, so deadlines,
// Close from another goroutine and the scheduler behave as with net.Conn.
//
// A connection that offers no file descriptor (a test's net.Pipe, later
// TLS) is used through net.Conn as it is.
type sockIO struct {
	nc net.Conn
	rc syscall.RawConn // nil: use nc

	// The buffer and the outcome of the call in flight; read and write
	// each have their own, as a reply may be written while a read waits.
	rbuf, wbuf []byte
	rn, wn     int
	rerr, werr syscall.Errno
	readFn     func(fd uintptr) bool
	writeFn    func(fd uintptr) bool
}

func newSockIO(nc net.Conn) *sockIO {
	s := &sockIO{nc: nc}
	if sc, ok := nc.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			s.rc = rc
			// Bound once, so a call allocates no closure.
			s.readFn = s.readOnce
			s.writeFn = s.writeSome
		}
	}
	return s
}

// readOnce is one read(2); false asks the poller to wait until the socket
// is readable and call again.
func (s *sockIO) readOnce(fd uintptr) bool {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&s.rbuf[0])), uintptr(len(s.rbuf)))
	switch errno {
	case syscall.EAGAIN:
		return false
	case syscall.EINTR:
		return s.readOnce(fd)
	}
	s.rn, s.rerr = int(n), errno
	return true
}

func (s *sockIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.rc == nil {
		return s.nc.Read(p)
	}
	s.rbuf, s.rn, s.rerr = p, 0, 0
	err := s.rc.Read(s.readFn)
	s.rbuf = nil
	switch {
	case err != nil:
		return 0, s.opError("read", err)
	case s.rerr != 0:
		return 0, s.opError("read", os.NewSyscallError("read", s.rerr))
	case s.rn == 0:
		return 0, io.EOF
	}
	return s.rn, nil
}

// writeSome writes what is left of wbuf; false asks the poller to wait
// until the socket takes more and call again.
func (s *sockIO) writeSome(fd uintptr) bool {
	for s.wn < len(s.wbuf) {
		rest := s.wbuf[s.wn:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
		switch errno {
		case 0:
			s.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			s.werr = errno
			return true
		}
	}
	return true
}

func (s *sockIO) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.rc == nil {
		return s.nc.Write(p)
	}
	s.wbuf, s.wn, s.werr = p, 0, 0
	err := s.rc.Write(s.writeFn)
	s.wbuf = nil
	switch {
	case err != nil:
		return s.wn, s.opError("write", err)
	case s.werr != 0:
		return s.wn, s.opError("write", os.NewSyscallError("write", s.werr))
	}
	return s.wn, nil
}

// opError wraps an error as net.Conn would, so callers that look for a
// timeout (net.Error) or a closed connection (net.ErrClosed) find it.
func (s *sockIO) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: s.nc.LocalAddr().Network(), Source: s.nc.LocalAddr(), Addr: s.nc.RemoteAddr(), Err: err}
}
