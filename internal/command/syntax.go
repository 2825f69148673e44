package command

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseArgs reads a command's documented arguments (COMMAND DOCS
// "arguments") from a compact syntax modelled on the Redis docs' usage
// lines, so that a command table can state them in one line per command
// instead of a page of nested struct literals. ZADD reads:
//
//	key:key condition=[NX | XX]{3.0.2} comparison=[GT | LT]{6.2.0}
//	[change=CH]{3.0.2} [increment=INCR]{3.0.2} score_member=(score:double member)...
//
// The notation:
//
//   - name, name:type — an argument; the type is one of key, string,
//     integer, double, pattern and unix-time, string when left out. A name
//     is lower case ([a-z0-9_-]); any other name is quoted: 'ip:port'.
//   - #N after an argument links it to key spec N. Key arguments link to
//     the key specs in order of appearance (the first to 0, the next to 1,
//     ...) unless they say otherwise; other arguments link only with #N.
//   - TOKEN — an upper-case word ([A-Z][A-Z0-9_-]*, or any text quoted as
//     "..."). Followed by an argument or a ( group ), it is that element's
//     token (EX seconds:integer, AGGREGATE (SUM | MIN | MAX)); otherwise
//     it is a pure token, named by its lower-cased text.
//   - [ ... ] marks what it holds optional, ( ... ) only groups it.
//     Alternatives separated by | make a oneof; a group of several
//     elements makes a block; a group of one element is that element.
//   - name= before a pure token, oneof or block names it: change=CH,
//     condition=[NX | XX], data=(key:key value).... A named group is
//     never just its element: parameter=(parameter)... is a block of one.
//   - ... after an element marks it multiple. A group of one tokened
//     element followed by ... repeats the token too (multiple_token):
//     [GET pattern]... where GET pattern... repeats only the pattern.
//   - {3.0.2} after an element is the version that added it;
//     {deprecated 2.8.12} and {display "ip:port"} set deprecated_since
//     and display_text; several attributes are separated by commas.
//
// ParseArgs returns an error naming the offset of the first fault; it
// never panics, whatever the input.
func ParseArgs(syntax string) ([]Arg, error) {
	p := &argParser{src: syntax}
	args, err := p.parseList()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q", p.src[p.pos])
	}
	return args, nil
}

// MustParseArgs is ParseArgs for command tables written in the source: a
// syntax error there is a programming error that must stop start-up.
func MustParseArgs(syntax string) []Arg {
	args, err := ParseArgs(syntax)
	if err != nil {
		panic(fmt.Sprintf("command: arguments %q: %v", syntax, err))
	}
	return args
}

// maxArgDepth bounds group nesting; Redis's own tables nest three deep.
const maxArgDepth = 16

type argParser struct {
	src   string
	pos   int
	depth int
	// keys counts the key arguments read so far, for the default link.
	keys int
}

func (p *argParser) errorf(format string, a ...any) error {
	return fmt.Errorf("offset %d: %s", p.pos, fmt.Sprintf(format, a...))
}

func (p *argParser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *argParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// parseList reads elements up to the end of the input, a '|' or a closing
// bracket, which it leaves for the caller.
func (p *argParser) parseList() ([]Arg, error) {
	var out []Arg
	for {
		p.skipSpace()
		switch p.peek() {
		case 0, '|', ']', ')':
			return out, nil
		}
		a, err := p.parseItem()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		switch p.peek() {
		case 0, ' ', '|', ']', ')':
		default:
			return nil, p.errorf("expected a space after an element")
		}
	}
}

// parseItem reads [name=] followed by a pure token, a token and its
// operand, or an operand.
func (p *argParser) parseItem() (Arg, error) {
	start := p.pos
	rename, hasRename := "", false
	if isNameStart(p.peek()) {
		// A name followed by '=' names the element after it; otherwise it
		// is an argument of its own.
		save := p.pos
		name, err := p.parseName()
		if err != nil {
			return Arg{}, err
		}
		if p.peek() == '=' {
			p.pos++
			rename, hasRename = name, true
		} else {
			p.pos = save
		}
	}
	var a Arg
	var err error
	if isTokenStart(p.peek()) {
		tok, terr := p.parseToken()
		if terr != nil {
			return Arg{}, terr
		}
		// A token takes the argument or required group after it.
		save := p.pos
		p.skipSpace()
		switch c := p.peek(); {
		case save < p.pos && isNameStart(c), save < p.pos && c == '(':
			if a, err = p.parseOperand(hasRename); err != nil {
				return Arg{}, err
			}
			if a.Token != "" {
				return Arg{}, p.errorf("token %q before an element that has one", tok)
			}
			a.Token = tok
		default:
			p.pos = save
			a = Arg{Name: lowerASCIIString(tok), Type: ArgPureTok, Token: tok}
			if err = p.parseSuffixes(&a, false); err != nil {
				return Arg{}, err
			}
		}
	} else if a, err = p.parseOperand(hasRename); err != nil {
		return Arg{}, err
	}
	if hasRename {
		switch a.Type {
		case ArgPureTok, ArgOneOf, ArgBlock:
			a.Name = rename
		default:
			p.pos = start
			return Arg{}, p.errorf("%q= names an argument that has a name", rename)
		}
	}
	if (a.Type == ArgBlock || a.Type == ArgOneOf) && a.Name == "" {
		p.pos = start
		return Arg{}, p.errorf("a oneof or block needs a name: write name=(...)")
	}
	return a, nil
}

// parseOperand reads an argument or a group, and the suffixes after it. A
// named group is never transparent: name=(x) is a block of one.
func (p *argParser) parseOperand(named bool) (Arg, error) {
	var a Arg
	transparent := false
	switch c := p.peek(); {
	case c == '[' || c == '(':
		var err error
		if a, transparent, err = p.parseGroup(named); err != nil {
			return Arg{}, err
		}
	case isNameStart(c):
		name, err := p.parseName()
		if err != nil {
			return Arg{}, err
		}
		a = Arg{Name: name, Type: ArgString}
		if p.peek() == ':' {
			p.pos++
			if a.Type, err = p.parseType(); err != nil {
				return Arg{}, err
			}
		}
		if a.Type == ArgKey {
			a.KeySpecIndex = p.keys
			p.keys++
		}
		if p.peek() == '#' {
			p.pos++
			n, err := p.parseInt()
			if err != nil {
				return Arg{}, err
			}
			a.KeySpecIndex = n
			if a.Type != ArgKey && n == 0 {
				return Arg{}, p.errorf("only a key argument can link to key spec 0")
			}
		}
	default:
		return Arg{}, p.errorf("expected an argument, a token or a group")
	}
	return a, p.parseSuffixes(&a, transparent)
}

// parseGroup reads [ ... ] or ( ... ). transparent reports a group that
// held a single element and so stands for that element; with block set,
// such a group is a block of one instead.
func (p *argParser) parseGroup(block bool) (a Arg, transparent bool, err error) {
	if p.depth >= maxArgDepth {
		return Arg{}, false, p.errorf("groups nest deeper than %d", maxArgDepth)
	}
	p.depth++
	defer func() { p.depth-- }()
	open := p.src[p.pos]
	closing := byte(')')
	if open == '[' {
		closing = ']'
	}
	p.pos++
	var alts [][]Arg
	for {
		seq, err := p.parseList()
		if err != nil {
			return Arg{}, false, err
		}
		if len(seq) == 0 {
			return Arg{}, false, p.errorf("empty group or alternative")
		}
		alts = append(alts, seq)
		c := p.peek()
		if c == '|' {
			p.pos++
			continue
		}
		if c != closing {
			return Arg{}, false, p.errorf("expected %q", closing)
		}
		p.pos++
		break
	}
	switch {
	case len(alts) > 1:
		a = Arg{Type: ArgOneOf}
		for _, seq := range alts {
			if len(seq) > 1 {
				return Arg{}, false, p.errorf("an alternative of several elements must be a named block: name=(...)")
			}
			a.Args = append(a.Args, seq[0])
		}
	case len(alts[0]) > 1 || block:
		a = Arg{Type: ArgBlock, Args: alts[0]}
	default:
		a, transparent = alts[0][0], true
	}
	if open == '[' {
		a.Optional = true
	}
	return a, transparent, nil
}

// parseSuffixes reads "..." and "{...}" after an element. On a group that
// stands for one tokened element, "..." repeats the token as well.
func (p *argParser) parseSuffixes(a *Arg, transparent bool) error {
	for {
		switch {
		case strings.HasPrefix(p.src[p.pos:], "..."):
			p.pos += 3
			a.Multiple = true
			if transparent && a.Token != "" {
				a.MultipleToken = true
			}
		case p.peek() == '{':
			p.pos++
			if err := p.parseAttrs(a); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

func (p *argParser) parseAttrs(a *Arg) error {
	for {
		p.skipSpace()
		switch {
		case strings.HasPrefix(p.src[p.pos:], "deprecated "):
			p.pos += len("deprecated ")
			v, err := p.parseVersion()
			if err != nil {
				return err
			}
			a.DeprecatedSince = v
		case strings.HasPrefix(p.src[p.pos:], "display "):
			p.pos += len("display ")
			if p.peek() != '"' {
				return p.errorf(`display text must be quoted: display "..."`)
			}
			s, err := p.parseQuoted('"')
			if err != nil {
				return err
			}
			a.DisplayText = s
		default:
			v, err := p.parseVersion()
			if err != nil {
				return err
			}
			a.Since = v
		}
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.errorf(`expected "," or "}"`)
		}
	}
}

func (p *argParser) parseVersion() (string, error) {
	start := p.pos
	for p.pos < len(p.src) && (isDigit(p.src[p.pos]) || p.src[p.pos] == '.') {
		p.pos++
	}
	v := p.src[start:p.pos]
	if v == "" || v[0] == '.' || v[len(v)-1] == '.' || strings.Contains(v, "..") {
		p.pos = start
		return "", p.errorf("expected a version such as 6.2.0")
	}
	return v, nil
}

func (p *argParser) parseInt() (int, error) {
	start := p.pos
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) && p.pos-start < 4 {
		p.pos++
	}
	if start == p.pos {
		return 0, p.errorf("expected a key spec index")
	}
	n, _ := strconv.Atoi(p.src[start:p.pos])
	return n, nil
}

var argTypes = [...]ArgType{ArgKey, ArgString, ArgInteger, ArgDouble, ArgPattern, ArgUnixTime}

func (p *argParser) parseType() (ArgType, error) {
	for _, t := range argTypes {
		if rest, ok := strings.CutPrefix(p.src[p.pos:], string(t)); ok && (rest == "" || !isNameByte(rest[0])) {
			p.pos += len(t)
			return t, nil
		}
	}
	return "", p.errorf("unknown argument type")
}

func (p *argParser) parseName() (string, error) {
	if p.peek() == '\'' {
		return p.parseQuoted('\'')
	}
	start := p.pos
	for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos], nil
}

func (p *argParser) parseToken() (string, error) {
	if p.peek() == '"' {
		return p.parseQuoted('"')
	}
	start := p.pos
	for p.pos < len(p.src) && isTokenByte(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos], nil
}

// parseQuoted reads text between two q quotes. It has no escapes: no name,
// token or display text Redis uses contains a quote.
func (p *argParser) parseQuoted(q byte) (string, error) {
	start := p.pos
	end := strings.IndexByte(p.src[start+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated quote")
	}
	if end == 0 && q != '"' {
		// Only a token may be empty: MIGRATE's "" stands for no key.
		return "", p.errorf("empty quoted text")
	}
	p.pos = start + 1 + end + 1
	return p.src[start+1 : start+1+end], nil
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isNameStart(c byte) bool  { return ('a' <= c && c <= 'z') || isDigit(c) || c == '\'' }
func isNameByte(c byte) bool   { return ('a' <= c && c <= 'z') || isDigit(c) || c == '_' || c == '-' }
func isTokenStart(c byte) bool { return ('A' <= c && c <= 'Z') || c == '"' }
func isTokenByte(c byte) bool  { return ('A' <= c && c <= 'Z') || isDigit(c) || c == '_' || c == '-' }
func plainName(s string) bool {
	return s != "" && isNameStart(s[0]) && s[0] != '\'' && allBytes(s, isNameByte)
}
func plainToken(s string) bool {
	return s != "" && s[0] != '"' && isTokenStart(s[0]) && allBytes(s, isTokenByte)
}

// lowerASCIIString lower-cases A-Z only, as the name of a pure token is its
// token in lower case.
func lowerASCIIString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func allBytes(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

// FormatArgs writes args in ParseArgs's syntax, so that ParseArgs gives
// them back. It is how a test shows where two argument lists differ, and
// how a command's arguments are put in docs/commands.md. It returns an
// error for what the syntax cannot state: an unnamed or empty oneof or
// block, multiple_token without a token or without multiple, a name or
// token with both kinds of quote, or a non-key argument linked to key
// spec 0.
func FormatArgs(args []Arg) (string, error) {
	f := &argFormatter{b: new(strings.Builder)}
	if err := f.list(args, " "); err != nil {
		return "", err
	}
	return f.b.String(), nil
}

type argFormatter struct {
	b    *strings.Builder
	keys int
}

func (f *argFormatter) list(args []Arg, sep string) error {
	outer := f.b
	defer func() { f.b = outer }()
	parts := make([]string, len(args))
	for i := range args {
		f.b = new(strings.Builder)
		if err := f.item(&args[i]); err != nil {
			return err
		}
		parts[i] = f.b.String()
	}
	// A bare pure token would take a following argument or ( group ) as
	// its own: a group of one keeps it apart. Going backwards, each check
	// sees the next element as it is finally written.
	for i := len(parts) - 2; i >= 0; i-- {
		a := &args[i]
		if sep == " " && a.Type == ArgPureTok && !a.Optional && !a.MultipleToken {
			if c := parts[i+1][0]; isNameStart(c) || c == '(' {
				parts[i] = "(" + parts[i] + ")"
			}
		}
	}
	outer.WriteString(strings.Join(parts, sep))
	return nil
}

func (f *argFormatter) item(a *Arg) error {
	if a.MultipleToken && (a.Token == "" || !a.Multiple) {
		return fmt.Errorf("argument %q: multiple_token needs a token and multiple", a.Name)
	}
	if a.Name == "" {
		return fmt.Errorf("an argument of type %q has no name", a.Type)
	}
	// A tokened element that repeats its token is wrapped in a group of
	// one, which carries the optional flag and the "..." itself.
	wrap := a.MultipleToken || (a.Optional && a.Token != "")
	if wrap {
		if a.Optional {
			f.b.WriteByte('[')
		} else {
			f.b.WriteByte('(')
		}
	}
	named := a.Type == ArgOneOf || a.Type == ArgBlock || (a.Type == ArgPureTok && a.Name != lowerASCIIString(a.Token))
	if named {
		if err := f.name(a.Name); err != nil {
			return err
		}
		f.b.WriteByte('=')
	}
	if a.Token != "" || a.Type == ArgPureTok {
		if err := f.token(a.Token); err != nil {
			return err
		}
		if a.Type != ArgPureTok {
			f.b.WriteByte(' ')
		}
	}
	// Inside a wrap the element itself is neither optional nor repeated;
	// the wrap says so.
	optional := a.Optional && !wrap
	multiple := a.Multiple && !a.MultipleToken
	switch a.Type {
	case ArgPureTok:
		if optional {
			return fmt.Errorf("pure token %q: optional without a token", a.Name)
		}
		if a.KeySpecIndex != 0 {
			return fmt.Errorf("pure token %q cannot link to a key spec", a.Name)
		}
	case ArgOneOf, ArgBlock:
		if len(a.Args) == 0 || (a.Type == ArgOneOf && len(a.Args) == 1) {
			return fmt.Errorf("%s %q needs more arguments", a.Type, a.Name)
		}
		if a.KeySpecIndex != 0 {
			return fmt.Errorf("%s %q cannot link to a key spec", a.Type, a.Name)
		}
		open, closing := "(", ")"
		if optional {
			open, closing = "[", "]"
		}
		f.b.WriteString(open)
		sep := " "
		if a.Type == ArgOneOf {
			sep = " | "
		}
		if err := f.list(a.Args, sep); err != nil {
			return err
		}
		f.b.WriteString(closing)
	default:
		if optional {
			// An optional argument without a token: a group of one.
			f.b.WriteByte('[')
		}
		if err := f.arg(a); err != nil {
			return err
		}
		if optional {
			f.b.WriteByte(']')
		}
	}
	if multiple {
		f.b.WriteString("...")
	}
	if err := f.attrs(a); err != nil {
		return err
	}
	if wrap {
		if a.Optional {
			f.b.WriteByte(']')
		} else {
			f.b.WriteByte(')')
		}
		if a.MultipleToken {
			f.b.WriteString("...")
		}
	}
	return nil
}

func (f *argFormatter) arg(a *Arg) error {
	if err := f.name(a.Name); err != nil {
		return err
	}
	switch a.Type {
	case ArgString:
	case ArgKey, ArgInteger, ArgDouble, ArgPattern, ArgUnixTime:
		f.b.WriteByte(':')
		f.b.WriteString(string(a.Type))
	default:
		return fmt.Errorf("argument %q: unknown type %q", a.Name, a.Type)
	}
	switch {
	case a.Type == ArgKey:
		if a.KeySpecIndex != f.keys {
			f.b.WriteString("#" + strconv.Itoa(a.KeySpecIndex))
		}
		f.keys++
	case a.KeySpecIndex > 0:
		f.b.WriteString("#" + strconv.Itoa(a.KeySpecIndex))
	case a.KeySpecIndex < 0:
		return fmt.Errorf("argument %q: negative key spec index", a.Name)
	}
	return nil
}

func (f *argFormatter) attrs(a *Arg) error {
	if strings.Contains(a.DisplayText, `"`) {
		return fmt.Errorf("argument %q: display text %q cannot be written", a.Name, a.DisplayText)
	}
	var attrs []string
	if a.Since != "" {
		attrs = append(attrs, a.Since)
	}
	if a.DeprecatedSince != "" {
		attrs = append(attrs, "deprecated "+a.DeprecatedSince)
	}
	if a.DisplayText != "" {
		attrs = append(attrs, `display "`+a.DisplayText+`"`)
	}
	if len(attrs) > 0 {
		f.b.WriteString("{" + strings.Join(attrs, ", ") + "}")
	}
	return nil
}

func (f *argFormatter) name(s string) error {
	switch {
	case plainName(s):
		f.b.WriteString(s)
	case s != "" && !strings.Contains(s, "'"):
		f.b.WriteString("'" + s + "'")
	default:
		return fmt.Errorf("name %q cannot be written", s)
	}
	return nil
}

func (f *argFormatter) token(s string) error {
	switch {
	case plainToken(s):
		f.b.WriteString(s)
	case !strings.Contains(s, `"`):
		f.b.WriteString(`"` + s + `"`)
	default:
		return fmt.Errorf("token %q cannot be written", s)
	}
	return nil
}
