// Assorted forms: const locals as array sizes, comma expressions in for loops,
// vector initializer lists, nested initializers for struct arrays, component-wise
// ?: with a vector condition, chained assignment, static locals, integer limits.
struct Item { uint id; float2 w; };
static const uint N = 3;
RWStructuredBuffer<uint> Out : register(u0);

uint counter()
{
    static uint calls = 0;
    calls++;
    return calls;
}

[shader("compute")] [numthreads(2, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    const int M = 2;
    float local[M * 2];
    Item items[N] = { { 1, { 0.5, 1 } }, { 2, float2(2, 3) }, { 3, 4, 5 } };
    uint2 v = { 1, 2 };
    uint a, b;
    a = b = v.y;
    for (int i = 0, j = 10; i < j; i++, j--)
        local[i % 4] = j;
    bool2 pick = bool2(id.x == 0, true);
    uint2 sel = pick ? v : uint2(7, 8);
    int minInt = -2147483647 - 1;
    uint maxU = 0xFFFFFFFF;
    Out[id.x] = a + b + sel.x + items[2].id + (uint)items[0].w.y + (uint)local[1] + counter() + (uint)minInt + maxU;
}
