package diag

import "testing"

// TestFilePos: a whole-file position prints the bare path, no line, column or
// caret; the zero Pos still prints "<unknown>".
func TestFilePos(t *testing.T) {
	src := NewSource("a.hlsl", "void f() {}\n")
	m := Msg{Severity: Error, Code: ErrNoEntryPoint, Pos: FilePos(src), Text: "no entry point"}
	if got, want := m.Render(), "a.hlsl: error E0802: no entry point\n"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if p := FileOnly("b.hlsl"); !p.IsFile() || p.String() != "b.hlsl" {
		t.Errorf("FileOnly = %v", p)
	}
	if p := (Pos{Src: src, Off: 5}); p.IsFile() || p.String() != "a.hlsl:1:6" {
		t.Errorf("Pos = %v", p)
	}
	if (Pos{}).String() != "<unknown>" {
		t.Error("zero Pos")
	}
	var l Log
	l.Errorf(Pos{Src: src, Off: 3}, ErrInternal, "later")
	l.Errorf(FilePos(src), ErrNoEntryPoint, "file")
	if s := l.Sorted(); s[0].Text != "file" {
		t.Errorf("a whole-file message sorts before the file's lines: %v", s)
	}
}
