package mutate

import (
	"fmt"
	"strings"
)

// The intrinsic names (kernels.Case.OpName) each mutant is run against. A
// mutant lists every operation whose kernels carry the instruction it edits;
// where it matches nothing in a kernel it is "not applicable" there.
var (
	sumOps     = []string{"WaveActiveSum", "WavePrefixSum", "WaveMultiPrefixSum"}
	productOps = []string{"WaveActiveProduct", "WavePrefixProduct", "WaveMultiPrefixProduct"}
	bitOps     = []string{"WaveActiveBitAnd", "WaveActiveBitOr", "WaveActiveBitXor", "WaveMultiPrefixBitAnd", "WaveMultiPrefixBitOr", "WaveMultiPrefixBitXor"}
	reduceOps  = []string{"WaveActiveSum", "WaveActiveProduct", "WaveActiveMin", "WaveActiveMax", "WaveActiveBitAnd", "WaveActiveBitOr", "WaveActiveBitXor"}
	scanOps    = []string{"WavePrefixSum", "WavePrefixProduct"}
	countOps   = []string{"WaveActiveCountBits", "WavePrefixCountBits", "WaveMultiPrefixCountBits"}
	multiOps   = []string{"WaveMultiPrefixSum", "WaveMultiPrefixProduct", "WaveMultiPrefixBitAnd", "WaveMultiPrefixBitOr", "WaveMultiPrefixBitXor", "WaveMultiPrefixCountBits"}
	quadOps    = []string{"QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal", "QuadAny", "QuadAll"}
	ballotOps  = []string{"WaveActiveBallot", "WaveActiveCountBits", "WavePrefixCountBits"}
	// valueOps are the operations whose group instruction returns its value
	// operand's type: "the input stored instead of the result" applies to them.
	valueOps = concat(reduceOps, scanOps, []string{"WaveReadLaneAt", "WaveReadLaneFirst", "QuadReadLaneAt"}, quadOps[:3])
	allOps   = concat(reduceOps, scanOps, countOps, []string{"WaveActiveBallot", "WaveReadLaneAt", "WaveReadLaneFirst", "QuadReadLaneAt",
		"WaveActiveAllTrue", "WaveActiveAnyTrue", "WaveActiveAllEqual", "WaveIsFirstLane"}, quadOps[:3])
)

func concat(ls ...[]string) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// All is the catalogue of planted bugs, by family. Each edits every matching
// instruction of a module (a compiler or driver bug is systematic), never the
// layout key.
var All = concat2(
	opcodeSwaps(),
	groupOperations(),
	laneIndex(),
	broadcasts(),
	quads(),
	ballots(),
	votes(),
	scopes(),
	builtins(),
	dataFlow(),
)

func concat2(ls ...[]Mutation) []Mutation {
	var out []Mutation
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// mut makes a Mutation from an edit of the parsed module that returns how many
// instructions it changed (0: the mutation does not apply).
func mut(name, family, plants string, ops []string, f func(m *module) int) Mutation {
	apply := func(t string) (string, error) {
		m := newModule(t)
		if f(m) == 0 {
			return "", fmt.Errorf("mutation %q: nothing to change", name)
		}
		return m.text(), nil
	}
	return Mutation{Name: name, Family: family, Plants: plants, Ops: ops, Apply: apply,
		Applies: func(t string) bool { _, err := apply(t); return err == nil }}
}

// opcodeSwaps: the right group operation with the wrong arithmetic.
func opcodeSwaps() []Mutation {
	type swap struct {
		from, to, family string
		ops              []string
	}
	var out []Mutation
	for _, s := range []swap{
		{"IAdd", "IMul", "opcode", sumOps},
		{"IMul", "IAdd", "opcode", productOps},
		{"FAdd", "FMul", "opcode", sumOps},
		{"FMul", "FAdd", "opcode", productOps},
		{"SMin", "SMax", "opcode", []string{"WaveActiveMin"}},
		{"SMax", "SMin", "opcode", []string{"WaveActiveMax"}},
		{"UMin", "UMax", "opcode", []string{"WaveActiveMin"}},
		{"UMax", "UMin", "opcode", []string{"WaveActiveMax"}},
		{"FMin", "FMax", "opcode", []string{"WaveActiveMin"}},
		{"FMax", "FMin", "opcode", []string{"WaveActiveMax"}},
		{"SMin", "UMin", "signedness", []string{"WaveActiveMin"}},
		{"SMax", "UMax", "signedness", []string{"WaveActiveMax"}},
		{"UMin", "SMin", "signedness", []string{"WaveActiveMin"}},
		{"UMax", "SMax", "signedness", []string{"WaveActiveMax"}},
		{"BitwiseAnd", "BitwiseOr", "opcode", bitOps},
		{"BitwiseOr", "BitwiseXor", "opcode", bitOps},
		{"BitwiseXor", "BitwiseAnd", "opcode", bitOps},
		{"All", "Any", "vote", []string{"WaveActiveAllTrue"}},
		{"Any", "All", "vote", []string{"WaveActiveAnyTrue"}},
	} {
		s := s
		out = append(out, mut(s.from+"->"+s.to, s.family,
			fmt.Sprintf("OpGroupNonUniform%s computes with OpGroupNonUniform%s", s.from, s.to), s.ops,
			func(m *module) int {
				return m.edit(func(in inst) []string {
					if !isGroup(in, s.from) {
						return nil
					}
					in.op = "OpGroupNonUniform" + s.to
					return []string{in.String()}
				})
			}))
	}
	return out
}

var arithmetic = []string{"IAdd", "FAdd", "IMul", "FMul", "SMin", "UMin", "FMin", "SMax", "UMax", "FMax", "BitwiseAnd", "BitwiseOr", "BitwiseXor"}

// groupOp changes the group operation operand (Reduce, InclusiveScan,
// ExclusiveScan, the partitioned scans) of the listed instructions.
func groupOp(name, family, plants string, ops, suffixes []string, from, to string) Mutation {
	return mut(name, family, plants, ops, func(m *module) int {
		return m.edit(func(in inst) []string {
			if !isGroup(in, suffixes...) || len(in.args) < 3 || in.args[2] != from {
				return nil
			}
			in.args[2] = to
			return []string{in.String()}
		})
	})
}

func groupOperations() []Mutation {
	return []Mutation{
		groupOp("Reduce->ExclusiveScan", "group operation", "a reduction returns the exclusive prefix", reduceOps, arithmetic, "Reduce", "ExclusiveScan"),
		groupOp("Reduce->InclusiveScan", "group operation", "a reduction returns the inclusive prefix", reduceOps, arithmetic, "Reduce", "InclusiveScan"),
		groupOp("ExclusiveScan->InclusiveScan", "group operation", "a prefix includes the lane's own value", scanOps, arithmetic, "ExclusiveScan", "InclusiveScan"),
		groupOp("ExclusiveScan->Reduce", "group operation", "a prefix returns the whole wave's reduction", scanOps, arithmetic, "ExclusiveScan", "Reduce"),
		groupOp("BitCount Reduce->InclusiveScan", "ballot", "WaveActiveCountBits counts only the lanes up to this one", countOps, []string{"BallotBitCount"}, "Reduce", "InclusiveScan"),
		groupOp("BitCount ExclusiveScan->InclusiveScan", "ballot", "WavePrefixCountBits counts the lane's own bit", countOps, []string{"BallotBitCount"}, "ExclusiveScan", "InclusiveScan"),
		groupOp("BitCount ExclusiveScan->Reduce", "ballot", "WavePrefixCountBits counts every lane's bit", countOps, []string{"BallotBitCount"}, "ExclusiveScan", "Reduce"),
		groupOp("PartitionedExclusive->Inclusive", "group operation", "a partitioned prefix includes the lane's own value", multiOps, concat(arithmetic, []string{"BallotBitCount"}), "PartitionedExclusiveScanNV", "PartitionedInclusiveScanNV"),
	}
}

// shuffleLane rewrites the lane operand of every OpGroupNonUniformShuffle
// (args: type scope value lane); f returns the new lane id and any
// instructions that compute it.
func shuffleLane(name, plants string, f func(m *module, in inst, lane string) (string, []string)) Mutation {
	return mut(name, "lane index", plants, []string{"WaveReadLaneAt"}, func(m *module) int {
		return m.edit(func(in inst) []string {
			if !isGroup(in, "Shuffle") || len(in.args) != 4 {
				return nil
			}
			lane, pre := f(m, in, in.args[3])
			in.args[3] = lane
			return append(pre, in.String())
		})
	})
}

func laneIndex() []Mutation {
	binop := func(op string, v uint32) func(m *module, in inst, lane string) (string, []string) {
		return func(m *module, in inst, lane string) (string, []string) {
			n := m.name("lane")
			return n, []string{fmt.Sprintf("%s%s = %s %s %s %s", in.indent, n, op, m.uint(), lane, m.uintConst(v))}
		}
	}
	return []Mutation{
		shuffleLane("Shuffle lane+1", "WaveReadLaneAt reads lane i+1", binop("OpIAdd", 1)),
		shuffleLane("Shuffle lane^1", "WaveReadLaneAt reads the lane's neighbour in its pair", binop("OpBitwiseXor", 1)),
		shuffleLane("Shuffle lane 0", "WaveReadLaneAt always reads lane 0", func(m *module, in inst, lane string) (string, []string) {
			return m.uintConst(0), nil
		}),
		// Equivalent where every lane argument is below the wave size: kept to
		// show that the score tells such mutants apart (mutate.Survivors).
		shuffleLane("Shuffle lane wrapped", "WaveReadLaneAt reads lane (i mod the wave size) (a driver that wraps lane indices)", func(m *module, in inst, lane string) (string, []string) {
			size, mask, n := m.name("size"), m.name("mask"), m.name("lane")
			u := m.uint()
			return n, []string{
				fmt.Sprintf("%s%s = OpLoad %s %%SubgroupSize", in.indent, size, u),
				fmt.Sprintf("%s%s = OpISub %s %s %s", in.indent, mask, u, size, m.uintConst(1)),
				fmt.Sprintf("%s%s = OpBitwiseAnd %s %s %s", in.indent, n, u, lane, mask),
			}
		}),
		mut("Shuffle->BroadcastFirst", "lane index", "WaveReadLaneAt ignores its lane and reads the first active lane", []string{"WaveReadLaneAt"}, func(m *module) int {
			return m.edit(func(in inst) []string {
				if !isGroup(in, "Shuffle") || len(in.args) != 4 {
					return nil
				}
				in.op, in.args = "OpGroupNonUniformBroadcastFirst", in.args[:3]
				return []string{in.String()}
			})
		}),
	}
}

// copyResult replaces an instruction by a copy of one of its operands.
func copyResult(in inst, value string) []string {
	return []string{fmt.Sprintf("%s%s = OpCopyObject %s %s", in.indent, in.res, in.args[0], value)}
}

func broadcasts() []Mutation {
	toLane := func(v uint32) func(m *module) int {
		return func(m *module) int {
			return m.edit(func(in inst) []string {
				if !isGroup(in, "BroadcastFirst") || len(in.args) != 3 {
					return nil
				}
				in.op, in.args = "OpGroupNonUniformBroadcast", append(in.args, m.uintConst(v))
				return []string{in.String()}
			})
		}
	}
	first := []string{"WaveReadLaneFirst"}
	return []Mutation{
		mut("BroadcastFirst->Broadcast lane 0", "broadcast", "WaveReadLaneFirst reads lane 0, active or not", first, toLane(0)),
		mut("BroadcastFirst->Broadcast lane 1", "broadcast", "WaveReadLaneFirst reads lane 1 (the broadcast's source lane off by one)", first, toLane(1)),
		mut("BroadcastFirst dropped", "broadcast", "WaveReadLaneFirst returns the lane's own value", first, func(m *module) int {
			return m.edit(func(in inst) []string {
				if !isGroup(in, "BroadcastFirst") || len(in.args) != 3 {
					return nil
				}
				return copyResult(in, in.args[2])
			})
		}),
	}
}

// quadOperand rewrites the last operand (direction or index) of the quad
// instructions named by suffix; f maps its constant value to the new one.
func quadOperand(name, plants string, ops []string, suffix string, f func(v int64) int64) Mutation {
	return mut(name, "quad", plants, ops, func(m *module) int {
		return m.edit(func(in inst) []string {
			if !isGroup(in, suffix) || len(in.args) != 4 {
				return nil
			}
			v := m.constValue(in.args[3])
			if v < 0 {
				return nil // a non-constant operand: none of waverig's kernels has one
			}
			nv := f(v)
			if nv == v {
				return nil
			}
			in.args[3] = m.uintConst(uint32(nv))
			return []string{in.String()}
		})
	})
}

func quads() []Mutation {
	return []Mutation{
		quadOperand("QuadSwap direction", "QuadReadAcrossX swaps vertically and Y horizontally (diagonal: horizontally)", quadOps, "QuadSwap",
			func(v int64) int64 { return map[int64]int64{0: 1, 1: 0, 2: 0}[v] }),
		quadOperand("QuadSwap->Diagonal", "QuadReadAcrossX/Y swap diagonally (diagonal: vertically)", quadOps, "QuadSwap",
			func(v int64) int64 { return map[int64]int64{0: 2, 1: 2, 2: 1}[v] }),
		quadOperand("QuadBroadcast index^1", "QuadReadLaneAt reads its index's horizontal neighbour", []string{"QuadReadLaneAt"}, "QuadBroadcast",
			func(v int64) int64 { return v ^ 1 }),
		quadOperand("QuadBroadcast index 0", "QuadReadLaneAt always reads the quad's lane 0", []string{"QuadReadLaneAt"}, "QuadBroadcast",
			func(v int64) int64 { return 0 }),
		mut("QuadSwap dropped", "quad", "QuadReadAcross* return the lane's own value", quadOps, func(m *module) int {
			return m.edit(func(in inst) []string {
				if !isGroup(in, "QuadSwap") || len(in.args) != 4 {
					return nil
				}
				return copyResult(in, in.args[2])
			})
		}),
	}
}

// afterBallot renames each non-trivial OpGroupNonUniformBallot's result and
// computes the real result from it with the lines f returns (f gets the
// renamed ballot and the v4uint type).
func afterBallot(name, plants string, f func(m *module, in inst, ballot string) []string) Mutation {
	return mut(name, "ballot", plants, ballotOps, func(m *module) int {
		return m.edit(func(in inst) []string {
			if !isGroup(in, "Ballot") || len(in.args) != 3 {
				return nil
			}
			res := in.res
			in.res = m.name("ballot")
			tail := f(m, inst{indent: in.indent, res: res, args: []string{in.args[0]}}, in.res)
			return append([]string{in.String()}, tail...)
		})
	})
}

func ballots() []Mutation {
	return []Mutation{
		afterBallot("ballot bit order reversed", "each ballot word has its bits in reverse order (lane 0 in bit 31)", func(m *module, r inst, b string) []string {
			return []string{fmt.Sprintf("%s%s = OpBitReverse %s %s", r.indent, r.res, r.args[0], b)}
		}),
		afterBallot("ballot words swapped", "the ballot's first two words are swapped", func(m *module, r inst, b string) []string {
			return []string{fmt.Sprintf("%s%s = OpVectorShuffle %s %s %s 1 0 2 3", r.indent, r.res, r.args[0], b, b)}
		}),
		// Equivalent at every wave size up to 64 (words 2 and 3 are zero):
		// kept to show the score's survivors (mutate.Survivors).
		afterBallot("ballot high words swapped", "the ballot's words 2 and 3 (lanes 64 to 127) are swapped", func(m *module, r inst, b string) []string {
			return []string{fmt.Sprintf("%s%s = OpVectorShuffle %s %s %s 0 1 3 2", r.indent, r.res, r.args[0], b, b)}
		}),
		afterBallot("ballot counts inactive lanes", "the active mask is ignored: every inactive lane's bit is set", func(m *module, r inst, b string) []string {
			am, inv := m.name("active"), m.name("inactive")
			return []string{
				fmt.Sprintf("%s%s = OpGroupNonUniformBallot %s %s %s", r.indent, am, r.args[0], m.uintConst(3), m.declare("%mut_true", "OpConstantTrue "+m.boolType())),
				fmt.Sprintf("%s%s = OpNot %s %s", r.indent, inv, r.args[0], am),
				fmt.Sprintf("%s%s = OpBitwiseOr %s %s %s", r.indent, r.res, r.args[0], b, inv),
			}
		}),
		mut("ballot predicate negated", "ballot", "WaveActiveBallot sets the bits of the lanes whose predicate is false", ballotOps, func(m *module) int {
			return m.edit(func(in inst) []string {
				if !isGroup(in, "Ballot") || len(in.args) != 3 || in.args[2] == "%true" {
					return nil
				}
				n := m.name("not")
				pre := fmt.Sprintf("%s%s = OpLogicalNot %s %s", in.indent, n, m.boolType(), in.args[2])
				in.args[2] = n
				return []string{pre, in.String()}
			})
		}),
	}
}

// negate renames the result of the named group instructions and stores its
// logical negation instead.
func negate(name, plants string, ops []string, suffix string) Mutation {
	return mut(name, "vote", plants, ops, func(m *module) int {
		return m.edit(func(in inst) []string {
			if !isGroup(in, suffix) {
				return nil
			}
			res := in.res
			in.res = m.name("vote")
			return []string{in.String(), fmt.Sprintf("%s%s = OpLogicalNot %s %s", in.indent, res, in.args[0], in.res)}
		})
	})
}

func votes() []Mutation {
	return []Mutation{
		negate("AllEqual negated", "WaveActiveAllEqual answers the opposite", []string{"WaveActiveAllEqual"}, "AllEqual"),
		negate("Elect negated", "WaveIsFirstLane is true on every lane but the first", []string{"WaveIsFirstLane"}, "Elect"),
		mut("Elect->lane 0", "vote", "WaveIsFirstLane is true on lane 0, active or not", []string{"WaveIsFirstLane"}, func(m *module) int {
			return m.edit(func(in inst) []string {
				if !isGroup(in, "Elect") {
					return nil
				}
				l := m.name("lane")
				return []string{
					fmt.Sprintf("%s%s = OpLoad %s %%SubgroupLocalInvocationId", in.indent, l, m.uint()),
					fmt.Sprintf("%s%s = OpIEqual %s %s %s", in.indent, in.res, in.args[0], l, m.uintConst(0)),
				}
			})
		}),
	}
}

// scope sets the execution scope of every group instruction but the layout key.
func scope(name, plants string, to uint32) Mutation {
	return mut(name, "scope", plants, allOps, func(m *module) int {
		return m.edit(func(in inst) []string {
			if !strings.HasPrefix(in.op, "OpGroupNonUniform") || len(in.args) < 2 || m.constValue(in.args[1]) != 3 {
				return nil
			}
			in.args[1] = m.uintConst(to)
			return []string{in.String()}
		})
	})
}

func scopes() []Mutation {
	return []Mutation{
		scope("scope Subgroup->Workgroup", "the wave operation runs over the workgroup", 2),
		scope("scope Subgroup->Device", "the wave operation runs over the device", 1),
	}
}

// builtin rewrites the BuiltIn decorations: from[i] becomes to[i].
func builtin(name, plants string, ops []string, swap map[string]string) Mutation {
	return mut(name, "builtin", plants, ops, func(m *module) int {
		return m.edit(func(in inst) []string {
			if in.op != "OpDecorate" || len(in.args) != 3 || in.args[1] != "BuiltIn" {
				return nil
			}
			to, ok := swap[in.args[2]]
			if !ok {
				return nil
			}
			in.args[2] = to
			return []string{in.String()}
		})
	})
}

func builtins() []Mutation {
	ops := []string{"WaveGetLaneIndex", "WaveGetLaneCount"}
	return []Mutation{
		builtin("SubgroupLocalInvocationId<->SubgroupSize", "the lane index and the lane count builtins are swapped", ops,
			map[string]string{"SubgroupLocalInvocationId": "SubgroupSize", "SubgroupSize": "SubgroupLocalInvocationId"}),
		builtin("SubgroupLocalInvocationId->LocalInvocationIndex", "the lane index is the invocation's index in the workgroup", ops,
			map[string]string{"SubgroupLocalInvocationId": "LocalInvocationIndex"}),
		builtin("SubgroupSize->NumSubgroups", "the lane count is the number of waves in the workgroup", ops,
			map[string]string{"SubgroupSize": "NumSubgroups"}),
	}
}

// valueOperand is the value operand of a group instruction that returns its
// type: the reductions and scans (type scope op value), BroadcastFirst (type
// scope value), Shuffle and the quad operations (type scope value lane).
func valueOperand(in inst) (string, bool) {
	switch {
	case isGroup(in, arithmetic...) && len(in.args) == 4:
		return in.args[3], true
	case isGroup(in, "BroadcastFirst") && len(in.args) == 3:
		return in.args[2], true
	case isGroup(in, "Shuffle", "QuadSwap", "QuadBroadcast") && len(in.args) == 4:
		return in.args[2], true
	}
	return "", false
}

func dataFlow() []Mutation {
	return []Mutation{
		{
			Name: "inverted active-lane branch", Family: "control flow",
			Plants:  "the branch that guards the operation is inverted: the inactive lanes run it",
			Ops:     []string{"WaveActiveSum", "WavePrefixSum", "WaveActiveBallot", "WaveReadLaneAt", "QuadReadAcrossX"},
			Applies: func(t string) bool { _, _, ok := guardingBranch(t); return ok },
			Apply:   invertGuard,
		},
		{
			Name: "wrong identity for an empty prefix", Family: "identity",
			Plants:  "the first active lane's exclusive prefix is the identity plus one",
			Ops:     scanOps,
			Applies: func(t string) bool { m, _ := scalarIntScan(t); return m != nil },
			Apply:   wrongIdentity,
		},
		mut("input stored instead of the result", "data flow", "the operation's input is stored where its result belongs", valueOps, func(m *module) int {
			return m.edit(func(in inst) []string {
				v, ok := valueOperand(in)
				if !ok {
					return nil
				}
				return copyResult(in, v)
			})
		}),
	}
}
