package wiki

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// Bounds on the YAML of one front matter, beyond its size (MaxFileSize):
// go-yaml's parser slows down quadratically with the number of keys and
// with flow nesting (a front matter of 1 MiB of keys took a minute), so
// front matter is tokenized first and refused past these.
const (
	maxFrontTokens = 10000
	maxFlowDepth   = 64
)

// parseFrontMatter reads the YAML between the delimiters; firstLine is the
// file line of its first line. It returns the fields that read, and an
// error per field that did not, or one error when the YAML does not parse.
// Anchors and aliases are refused before parsing (go-yaml has no limit on
// alias expansion, so a billion-laughs document is never built).
func parseFrontMatter(src string, firstLine int) (FrontMatter, error) {
	var f FrontMatter
	at := func(line int) string { return fmt.Sprintf("front matter line %d", line+firstLine-1) }
	if len(src) > MaxFileSize {
		return f, fmt.Errorf("front matter: over %d bytes, not read", MaxFileSize)
	}
	src = strings.ToValidUTF8(src, "\uFFFD")
	if strings.TrimSpace(src) == "" {
		return f, nil
	}
	toks, err := tokenize(src)
	if err != nil {
		return f, fmt.Errorf("front matter: %w", err)
	}
	depth := 0
	for _, tk := range toks {
		switch tk.Type {
		case token.AnchorType, token.AliasType:
			return f, fmt.Errorf("%s: YAML anchors and aliases (%s) are not allowed", at(tk.Position.Line), tk.Value)
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > maxFlowDepth {
				return f, fmt.Errorf("%s: nested deeper than %d", at(tk.Position.Line), maxFlowDepth)
			}
		case token.SequenceEndType, token.MappingEndType:
			depth = max(depth-1, 0)
		}
	}
	file, err := parser.Parse(toks, 0)
	if err != nil {
		var ye interface {
			GetMessage() string
			GetToken() *token.Token
		}
		if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
			msg := ye.GetMessage()
			if i := strings.LastIndex(msg, " at ["); i > 0 && strings.HasSuffix(msg, "]") {
				msg = msg[:i] // a YAML position, not the file's line
			}
			return f, fmt.Errorf("%s: %s", at(ye.GetToken().Position.Line), msg)
		}
		return f, fmt.Errorf("front matter: %s", oneLine(err.Error()))
	}
	if len(file.Docs) > 1 {
		return f, errors.New("front matter: more than one YAML document")
	}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return f, nil
	}
	var values []*ast.MappingValueNode
	switch b := file.Docs[0].Body.(type) {
	case *ast.MappingNode:
		values = b.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{b}
	default:
		return f, fmt.Errorf("%s: want key: value", at(line(b)))
	}
	var errs []error
	for _, mv := range values {
		if err := f.setNode(mv); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at(line(mv.Key)), err))
		}
	}
	return f, errors.Join(errs...)
}

// tokenize is go-yaml's lexer.Tokenize, stopped past maxFrontTokens.
func tokenize(src string) (token.Tokens, error) {
	var (
		s    scanner.Scanner
		toks token.Tokens
	)
	s.Init(src)
	for {
		sub, err := s.Scan()
		if err == io.EOF {
			return toks, nil
		}
		toks.Add(sub...)
		if len(toks) > maxFrontTokens {
			return nil, fmt.Errorf("over %d YAML tokens, not read", maxFrontTokens)
		}
	}
}

// line is the YAML line of node n, 0 when unknown.
func line(n ast.Node) int {
	if n == nil {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

// setNode sets the field of one key: value of the front matter.
func (f *FrontMatter) setNode(mv *ast.MappingValueNode) error {
	k, ok := keyText(mv.Key)
	if !ok || !validKey(k) {
		return errors.New("want key: value, the key letters, digits, \"-\" and \"_\"")
	}
	switch k {
	case "title", "created", "updated", "question", "filed":
		s, err := scalarText(mv.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		*f.scalarField(k) = s
	case "aliases", "tags", "sources", "connects", "consulted":
		l, err := listText(mv.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		*f.listField(k) = l
	default:
		v, err := extraText(mv.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		if f.Extra == nil {
			f.Extra = map[string]string{}
		}
		f.Extra[k] = v
	}
	return nil
}

// keyText is the text of a scalar key.
func keyText(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, true
	}
	return "", false
}

// kind names what a non-scalar node is, for errors.
func kind(n ast.Node) string {
	switch n.(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a map"
	}
	return "a " + strings.ToLower(n.Type().String())
}

// scalarText is the string value of a scalar node: a quoted or block
// string decoded, any other scalar (a number, a bool, a date) as written,
// and an empty or null value "".
func scalarText(n ast.Node) (string, error) {
	switch n := n.(type) {
	case nil, *ast.NullNode:
		return "", nil
	case *ast.StringNode:
		return n.Value, nil
	case *ast.LiteralNode:
		if n.Value == nil {
			return "", nil
		}
		return n.Value.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, nil
	case *ast.TagNode:
		return scalarText(n.Value)
	}
	return "", fmt.Errorf("want a string, not %s", kind(n))
}

// listText is the strings of a list node (block or flow); an empty or null
// value is no list.
func listText(n ast.Node) ([]string, error) {
	if t, ok := n.(*ast.TagNode); ok {
		n = t.Value
	}
	switch n := n.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.SequenceNode:
		var l []string
		for i, item := range n.Values {
			if _, null := item.(*ast.NullNode); null || item == nil {
				return nil, fmt.Errorf("item %d is empty", i+1)
			}
			s, err := scalarText(item)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
			l = append(l, s)
		}
		return l, nil
	}
	return nil, fmt.Errorf("want a list of strings, not %s", kindOrString(n))
}

// kindOrString is kind, but "a string" for any scalar.
func kindOrString(n ast.Node) string {
	if _, err := scalarText(n); err == nil {
		return "a string"
	}
	return kind(n)
}

// extraText is the value of a key this package does not know, kept as
// one-line YAML that reads back to itself: a plain one-line scalar as
// written, any other string JSON-quoted (a YAML double-quoted string), a
// list or map in flow style with its strings quoted, an empty value "".
func extraText(n ast.Node) (string, error) {
	switch n := n.(type) {
	case nil:
		return "", nil
	case *ast.NullNode:
		if n.GetToken().Type == token.ImplicitNullType {
			return "", nil
		}
		return n.GetToken().Value, nil
	case *ast.StringNode:
		tk := n.GetToken()
		if tk.Type == token.StringType && !strings.ContainsAny(strings.TrimSpace(tk.Origin), "\r\n") && n.Value == strings.TrimSpace(n.Value) && n.Value != "" {
			return n.Value, nil
		}
		return quote(n.Value), nil
	case *ast.TagNode:
		return extraText(n.Value)
	}
	return flowText(n, 0)
}

// flowText writes n in flow style, strings quoted.
func flowText(n ast.Node, depth int) (string, error) {
	if depth > maxFlowDepth {
		return "", fmt.Errorf("nested deeper than %d", maxFlowDepth)
	}
	switch n := n.(type) {
	case nil:
		return "null", nil
	case *ast.NullNode:
		return "null", nil
	case *ast.StringNode:
		return quote(n.Value), nil
	case *ast.LiteralNode:
		s, _ := scalarText(n)
		return quote(s), nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, nil
	case *ast.TagNode:
		return flowText(n.Value, depth)
	case *ast.SequenceNode:
		items := make([]string, 0, len(n.Values))
		for _, v := range n.Values {
			s, err := flowText(v, depth+1)
			if err != nil {
				return "", err
			}
			items = append(items, s)
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	case *ast.MappingNode:
		return mapText(n.Values, depth)
	case *ast.MappingValueNode:
		return mapText([]*ast.MappingValueNode{n}, depth)
	}
	return "", fmt.Errorf("unsupported YAML %s", strings.ToLower(n.Type().String()))
}

// mapText writes the pairs of a map in flow style.
func mapText(values []*ast.MappingValueNode, depth int) (string, error) {
	pairs := make([]string, 0, len(values))
	for _, mv := range values {
		k, ok := keyText(mv.Key)
		if !ok {
			if mk, isMerge := mv.Key.(*ast.MergeKeyNode); isMerge {
				k, ok = mk.GetToken().Value, true
			}
		}
		if !ok {
			return "", errors.New("a map key that is not a string")
		}
		v, err := flowText(mv.Value, depth+1)
		if err != nil {
			return "", err
		}
		pairs = append(pairs, quote(k)+": "+v)
	}
	return "{" + strings.Join(pairs, ", ") + "}", nil
}

// yamlValue reads v as the YAML value of one key: its node and the text
// front matter keeps for it (extraText). It is false when v is not one
// line of YAML, or holds an anchor or alias.
func yamlValue(v string) (ast.Node, string, bool) {
	if strings.ContainsAny(v, "\r\n") || len(v) > MaxFileSize {
		return nil, "", false
	}
	toks, err := tokenize("k: " + v)
	if err != nil {
		return nil, "", false
	}
	for _, tk := range toks {
		if tk.Type == token.AnchorType || tk.Type == token.AliasType {
			return nil, "", false
		}
	}
	file, err := parser.Parse(toks, 0)
	if err != nil || len(file.Docs) != 1 {
		return nil, "", false
	}
	m, ok := file.Docs[0].Body.(*ast.MappingNode)
	if !ok || len(m.Values) != 1 {
		return nil, "", false
	}
	n := m.Values[0].Value
	kept, err := extraText(n)
	if err != nil {
		return nil, "", false
	}
	return n, kept, true
}

// ExtraString is the string value of the Extra key k (a summary, say):
// a quoted string unquoted, a bare one as it is. It is false when the key
// is absent or its value is a list or map.
func (f FrontMatter) ExtraString(k string) (string, bool) {
	v, ok := f.Extra[k]
	if !ok {
		return "", false
	}
	n, _, ok := yamlValue(v)
	if !ok {
		return v, true // not YAML: the text as it is
	}
	s, err := scalarText(n)
	return s, err == nil
}
