package compiler

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
)

// scalarTypes are the HLSL scalar types and the kind bit the intrinsic table uses.
var scalarTypes = []struct {
	name string
	kind intrinsics.Kinds
}{
	{"bool", intrinsics.KBool}, {"int", intrinsics.KInt}, {"uint", intrinsics.KUint}, {"float", intrinsics.KFloat},
	{"half", intrinsics.KFloat}, {"double", intrinsics.KFloat}, {"int64_t", intrinsics.KInt}, {"uint64_t", intrinsics.KUint},
}

// waveProgram calls op on a value of type t (scalar or vector) made from a
// buffer, and stores the result; the program is what a kernel author writes.
func waveProgram(in *intrinsics.Info, t string) string {
	arg := fmt.Sprintf("(%s)In[id.x]", t)
	if strings.HasPrefix(t, "bool") {
		arg = fmt.Sprintf("(%s)(In[id.x] & 1u)", t)
	}
	args := []string{}
	if len(in.Params) > 0 {
		args = append(args, "v")
	}
	for _, p := range in.Params[min(1, len(in.Params)):] {
		if p.Scalar32 {
			if in.Class == intrinsics.ClassQuad {
				args = append(args, "2u")
			} else {
				args = append(args, "id.x % 4u")
			}
		}
	}
	body := fmt.Sprintf("    %s v = %s;\n", t, arg)
	call := fmt.Sprintf("%s(%s)", in.Name, strings.Join(args, ", "))
	if len(in.Params) == 0 {
		body = ""
	}
	// any() reduces every result shape (bool, number, vector, ballot) to one bool.
	body += fmt.Sprintf("    Out[id.x] = (uint)any(%s != 0);\n", call)
	return fmt.Sprintf(`StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[shader("compute")] [numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
%s}
`, body)
}

// TestEveryWaveIntrinsicForEveryAcceptedType compiles each of the 24 SM 6.0 wave
// and quad intrinsics for every scalar type the table accepts, as a scalar and as
// vectors of 2–4 components where vectors are allowed, for Vulkan 1.1, 1.2 and
// 1.3, and validates every module with spirv-val. Types the table rejects must be
// rejected with a coded error.
func TestEveryWaveIntrinsicForEveryAcceptedType(t *testing.T) {
	spirvVal := needTool(t, "spirv-val")
	dir := t.TempDir()
	accepted, rejected := 0, 0
	for _, op := range intrinsics.Wave24 {
		in := intrinsics.Get(op)
		var vs []string
		if len(in.Params) == 0 {
			vs = []string{""}
		} else {
			for _, st := range scalarTypes {
				vs = append(vs, st.name)
				if in.Params[0].Shapes&intrinsics.SVector != 0 {
					for n := 2; n <= 4; n++ {
						vs = append(vs, fmt.Sprintf("%s%d", st.name, n))
					}
				}
			}
		}
		for _, typ := range vs {
			ok := true
			if len(in.Params) > 0 {
				for _, st := range scalarTypes {
					if strings.HasPrefix(typ, st.name) && (len(typ) == len(st.name) || strings.ContainsAny(typ[len(st.name):], "234")) {
						ok = in.Params[0].Kinds&st.kind != 0
					}
				}
			}
			src := waveProgram(in, typ)
			for _, vk := range []string{"1.1", "1.2", "1.3"} {
				res, err := Compile(fmt.Sprintf("%s_%s.hlsl", in.Name, typ), []byte(src), Options{Vulkan: vk})
				if !ok {
					if err == nil {
						t.Errorf("%s(%s): accepted, but the table does not allow %s", in.Name, typ, typ)
					} else if !strings.Contains(err.Error(), " E0") {
						t.Errorf("%s(%s): rejected without a code: %v", in.Name, typ, err)
					}
					rejected++
					break
				}
				if err != nil {
					t.Errorf("%s(%s) for Vulkan %s does not compile:\n%s\n%s", in.Name, typ, vk, res.Render(), src)
					break
				}
				f := filepath.Join(dir, "m.spv")
				os.WriteFile(f, res.Find("main", SPIRV), 0o644)
				if out, err := exec.Command(spirvVal, "--target-env", "vulkan"+vk, f).CombinedOutput(); err != nil {
					t.Errorf("%s(%s) for Vulkan %s: spirv-val: %s", in.Name, typ, vk, out)
					break
				}
				if got, want := res.Reflection.EntryPoints[0].SubgroupOperations&in.VkBit, in.VkBit; got != want {
					t.Errorf("%s(%s): reflection lacks the %#x bit", in.Name, typ, want)
				}
				accepted++
			}
		}
	}
	t.Logf("%d modules validated (op × type × Vulkan version), %d op × type combinations rejected as the table says", accepted, rejected)
}
