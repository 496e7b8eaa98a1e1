package sema

import (
	"fmt"
	"math"
	"strconv"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

// Resource bindings.
//
// Default mode (DXC-compatible):
//   - [[vk::binding(b, s)]] gives binding b in set s (s defaults to 0); it wins over
//     a register.
//   - register(xN, spaceM) gives binding N + shift in set M, whatever the register
//     class x, where shift is the sum of -fvk-x-shift N M options for that class and
//     space. So t0 and u0 in one space collide, as in DXC.
//   - A resource with neither gets the next binding in set 0 not used by an
//     explicit one, in declaration order.
//   - Two different resources on one (set, binding) are an error at the second one
//     (fix with -fvk-t-shift/-fvk-u-shift/-fvk-b-shift/-fvk-s-shift, [[vk::binding]],
//     or -auto-bindings).
//
// -auto-bindings mode (never collides): the set is the register space (or the set of
// [[vk::binding]]); bindings are numbered 0, 1, 2, … per set in declaration order,
// ignoring register and binding numbers.
//
// In both modes Binding.Register keeps the HLSL register ("t0", "u1,space2"; the
// class letter and number written, or "" when none was written) so a harness can
// find a resource by its HLSL register. Push constants have no binding.
func (c *checker) assignBindings() {
	for _, rd := range c.resources {
		if rd.reg != nil {
			// Concatenation instead of fmt.Sprintf("%c%d[,space%d]"): this runs
			// for every resource of every compile.
			reg := string(rune(rd.reg.Class)) + strconv.Itoa(rd.reg.Index)
			if rd.reg.Space != 0 {
				reg += ",space" + strconv.Itoa(rd.reg.Space)
			}
			rd.g.Binding = &ir.Binding{Register: reg}
		} else {
			rd.g.Binding = &ir.Binding{}
		}
	}
	if c.opts.AutoBindings {
		next := map[int]int{}
		for _, rd := range c.resources {
			set := 0
			switch {
			case rd.vkBinding != nil:
				set = rd.vkBinding[1]
			case rd.reg != nil:
				set = rd.reg.Space
				if !c.bindingInRange(rd, 0, set, 0) {
					continue
				}
			}
			rd.g.Binding.Set, rd.g.Binding.Binding = set, next[set]
			next[set]++
		}
		return
	}
	type slot struct{ set, binding int }
	used := map[slot]*resourceDecl{}
	var implicit []*resourceDecl
	for _, rd := range c.resources {
		var s slot
		switch {
		case rd.vkBinding != nil:
			s = slot{rd.vkBinding[1], rd.vkBinding[0]}
		case rd.reg != nil:
			shift := 0
			if m := c.opts.Shifts[rd.reg.Class]; m != nil {
				shift = m[rd.reg.Space]
			}
			s = slot{rd.reg.Space, rd.reg.Index + shift}
			if !c.bindingInRange(rd, shift, s.set, s.binding) {
				continue
			}
		default:
			implicit = append(implicit, rd)
			continue
		}
		rd.g.Binding.Set, rd.g.Binding.Binding = s.set, s.binding
		if prev, dup := used[s]; dup && prev.g != rd.g {
			c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrBindingCollision, Pos: rd.pos,
				Text: fmt.Sprintf("%s %q and %s %q both use set %d binding %d; pass %s, give one a [[vk::binding(b, s)]], or use -auto-bindings",
					describeReg(prev), prev.g.Name, describeReg(rd), rd.g.Name, s.set, s.binding, shiftHint(prev, rd)),
				Notes: []diag.Note{{Pos: prev.pos, Text: fmt.Sprintf("%q declared here", prev.g.Name)}}})
			continue
		}
		used[s] = rd
	}
	next := 0
	for _, rd := range implicit {
		for used[slot{0, next}] != nil {
			next++
		}
		rd.g.Binding.Set, rd.g.Binding.Binding = 0, next
		used[slot{0, next}] = rd
	}
}

// maxBinding is the largest descriptor set or binding number: SPIR-V's
// DescriptorSet and Binding decorations take a 32-bit word.
const maxBinding = math.MaxUint32

// bindingInRange reports whether a register's set and binding (after its
// -fvk-*-shift) fit in 32 bits; a number that did not would wrap around to a
// small binding and collide silently with another resource.
func (c *checker) bindingInRange(rd *resourceDecl, shift, set, binding int) bool {
	switch {
	case int64(set) > maxBinding:
		c.errorf(rd.reg.Pos, diag.ErrBindingRange, "%s %q: space %d does not fit in a 32-bit descriptor set number (at most %d)",
			describeReg(rd), rd.g.Name, set, int64(maxBinding))
	case int64(binding) > maxBinding:
		via := ""
		if shift != 0 {
			via = fmt.Sprintf(" with -fvk-%c-shift %d %d", rd.reg.Class, shift, rd.reg.Space)
		}
		c.errorf(rd.reg.Pos, diag.ErrBindingRange, "%s %q%s is binding %d, which does not fit in 32 bits (at most %d)",
			describeReg(rd), rd.g.Name, via, binding, int64(maxBinding))
	default:
		return true
	}
	return false
}

func describeReg(rd *resourceDecl) string {
	if rd.vkBinding != nil {
		return fmt.Sprintf("[[vk::binding(%d, %d)]]", rd.vkBinding[0], rd.vkBinding[1])
	}
	if rd.reg != nil {
		return fmt.Sprintf("%c%d", rd.reg.Class, rd.reg.Index)
	}
	return rd.g.Resource.String()
}

// shiftHint suggests the -fvk-*-shift option that separates two register classes.
func shiftHint(a, b *resourceDecl) string {
	if b.reg != nil && b.vkBinding == nil {
		other := byte('t')
		if a.reg != nil {
			other = a.reg.Class
		}
		if other != b.reg.Class {
			return fmt.Sprintf("-fvk-%c-shift N %d (e.g. -fvk-%c-shift 0 %d -fvk-%c-shift 100 %d)", b.reg.Class, b.reg.Space, other, b.reg.Space, b.reg.Class, b.reg.Space)
		}
		return fmt.Sprintf("-fvk-%c-shift N %d or a different register", b.reg.Class, b.reg.Space)
	}
	return "-fvk-t-shift/-fvk-u-shift"
}
