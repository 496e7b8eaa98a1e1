// out/inout arguments that are swizzles, buffer elements and indexed with side
// effects go through temporaries (copy-in/copy-out).
RWStructuredBuffer<float> Out : register(u0);

void swap(inout float a, inout float b) { float t = a; a = b; b = t; }
void set(out float x, float v) { x = v; }

[shader("compute")] [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 v = float2(1, 2);
    swap(v.x, v.y);
    float arr[4] = { 0, 0, 0, 0 };
    uint i = 0;
    set(arr[i++], 5);
    set(Out[id.x], v.x + arr[0]);
    int whole;
    set(whole, 2.5);
}
