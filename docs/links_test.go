// Package docs holds the user documentation; its only code is this test, which
// keeps README.md's and the pages' relative links pointing at files and
// headings that exist (the README is a map of the docs, so a broken link is a
// broken map).
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	fence    = regexp.MustCompile("(?s)```.*?```")
	code     = regexp.MustCompile("`[^`\n]*`")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	notSlug  = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	external = regexp.MustCompile(`^[a-z]+:`)
)

// slugs are a Markdown file's heading anchors as GitHub spells them: lower
// case, punctuation dropped, spaces as hyphens, "-N" for the Nth repeat.
func slugs(t *testing.T, path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, seen := map[string]bool{}, map[string]int{}
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inBlock || m == nil {
			continue
		}
		s := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(m[2]), ""), " ", "-")
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func TestRelativeLinksResolve(t *testing.T) {
	files := []string{"../README.md"}
	for _, pat := range []string{"*.md", "hardware/*/*.md"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	links := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := code.ReplaceAllString(fence.ReplaceAllString(string(data), ""), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			l := m[1]
			if external.MatchString(l) {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(l, "#")
			target := f
			if path != "" {
				target = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %s: no file %s", f, l, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(target, ".md") && !slugs(t, target)[anchor] {
				t.Errorf("%s: link %s: no heading #%s in %s", f, l, anchor, target)
			}
		}
	}
	if links < 20 {
		t.Fatalf("only %d relative links found: the scan is broken", links)
	}
	t.Logf("%d relative links in %d files", links, len(files))
}
