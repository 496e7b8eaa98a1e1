// bool in buffers is 32-bit: stored as uint and converted on every load and store.
struct Flags { bool on; bool2 pair; float v; };
StructuredBuffer<bool> In : register(t0);
RWStructuredBuffer<Flags> Out : register(u1);
cbuffer C : register(b2) { bool enabled; };

[shader("compute")] [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Flags f;
    f.on = In[id.x] && enabled;
    f.pair = bool2(f.on, !f.on);
    f.v = 1;
    Out[id.x] = f;
    Out[id.x].pair.y = true;
    bool b = Out[0].pair.x;
    if (b)
        Out[1].v = 2;
}
