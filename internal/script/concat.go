package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Lua's .. runs inside gopher-lua's VM, where nothing can see the size of
// what it builds: `s = s .. s` doubles a string per instruction, and the
// memory watchdog can only stop a run after the instruction that crossed
// its limit, by then holding a string twice too big. So every chunk is
// compiled with its chains of .. turned into calls of concat, which refuses
// (as string.rep does) a result longer than the engine's maxString before
// it allocates it.

// concatName is the name of the concatenating function. It is no Lua
// identifier, so no script can name, assign or shadow it: each chunk reads
// it once into a local of the same name, which its functions then share as
// an upvalue.
const concatName = "\x00concat"

// boundConcats rewrites chunk, a parsed chunk, so that its .. operations
// call concatName.
func boundConcats(chunk []ast.Stmt) []ast.Stmt {
	rewriteStmts(chunk)
	get := &ast.IdentExpr{Value: concatName}
	local := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{get}}
	return append([]ast.Stmt{local}, chunk...)
}

func rewriteStmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		rewriteStmt(s)
	}
}

func rewriteExprs(exprs []ast.Expr) {
	for i, e := range exprs {
		exprs[i] = rewriteExpr(e)
	}
}

func rewriteStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		rewriteExprs(s.Lhs)
		rewriteExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		rewriteExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rewriteExpr(s.Expr)
	case *ast.DoBlockStmt:
		rewriteStmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteStmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteStmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rewriteExpr(s.Condition)
		rewriteStmts(s.Then)
		rewriteStmts(s.Else)
	case *ast.NumberForStmt:
		s.Init = rewriteExpr(s.Init)
		s.Limit = rewriteExpr(s.Limit)
		if s.Step != nil {
			s.Step = rewriteExpr(s.Step)
		}
		rewriteStmts(s.Stmts)
	case *ast.GenericForStmt:
		rewriteExprs(s.Exprs)
		rewriteStmts(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			if s.Name.Func != nil {
				s.Name.Func = rewriteExpr(s.Name.Func)
			}
			if s.Name.Receiver != nil {
				s.Name.Receiver = rewriteExpr(s.Name.Receiver)
			}
		}
		rewriteStmts(s.Func.Stmts)
	case *ast.ReturnStmt:
		rewriteExprs(s.Exprs)
	}
}

func rewriteExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringConcatOpExpr:
		// a .. b .. c is right-associative: the compiler gathers the
		// chain down its right-hand sides into one concatenation, and so
		// does this, into one call.
		var args []ast.Expr
		var cur ast.Expr = x
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				args = append(args, rewriteExpr(cur))
				break
			}
			args = append(args, rewriteExpr(c.Lhs))
			cur = c.Rhs
		}
		fn := &ast.IdentExpr{Value: concatName}
		fn.SetLine(x.Line())
		fn.SetLastLine(x.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: true}
		call.SetLine(x.Line())
		call.SetLastLine(x.LastLine())
		return call
	case *ast.AttrGetExpr:
		x.Object = rewriteExpr(x.Object)
		x.Key = rewriteExpr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				f.Key = rewriteExpr(f.Key)
			}
			f.Value = rewriteExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			x.Func = rewriteExpr(x.Func)
		}
		if x.Receiver != nil {
			x.Receiver = rewriteExpr(x.Receiver)
		}
		rewriteExprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs, x.Rhs = rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs, x.Rhs = rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		x.Lhs, x.Rhs = rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.FunctionExpr:
		rewriteStmts(x.Stmts)
	}
	return e
}

// concat is Lua 5.1's concatenation of its arguments (luaV_concat): from
// the right, runs of strings and numbers are joined at once, a pair with
// another value goes to its __concat metamethod. A joined result longer
// than the engine's maxString is refused before it is built.
func (v *vm) concat(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		return 0
	}
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				bad := lhs
				if lua.LVCanConvToString(lhs) {
					bad = rhs
				}
				L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		// The run of strings and numbers ending at rhs.
		first := i
		for first > 1 && lua.LVCanConvToString(L.Get(first-1)) {
			first--
		}
		parts := make([]string, 0, i-first+2)
		size := int64(0)
		for k := first; k <= i; k++ {
			s := lua.LVAsString(L.Get(k))
			parts = append(parts, s)
			size += int64(len(s))
		}
		last := lua.LVAsString(rhs)
		size += int64(len(last))
		if size > v.e.maxString() {
			L.RaiseError("not enough memory")
		}
		parts = append(parts, last)
		rhs = lua.LString(strings.Join(parts, ""))
		i = first - 1
	}
	L.Push(rhs)
	return 1
}
