// asdouble and asuint's double form: one Bitcast between a double and a uint2
// per component, component 0 the low word. Scalar, the vector widths, int and
// literal words, and out arguments that are buffer elements, swizzles and ints.
RWStructuredBuffer<uint> Buf : register(u0);

// An in parameter passed as asuint's out argument gets a local copy: the
// caller's variable keeps its value.
uint high(double d, uint lo)
{
    uint hi;
    asuint(d, lo, hi);
    return hi ^ lo;
}

[shader("compute")] [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint i = id.x * 8;
    double d = asdouble(Buf[i], Buf[i + 1]);
    asuint(d * 3.0 - d, Buf[i + 2], Buf[i + 3]);

    int lo = (int)Buf[i + 4];
    double e = asdouble(lo, 0x3FF00000);
    uint2 w;
    asuint(e, w.y, w.x);
    Buf[i + 4] = w.x;

    uint2 l2 = uint2(Buf[i], Buf[i + 2]);
    double2 d2 = asdouble(l2, uint2(Buf[i + 1], Buf[i + 3]));
    uint3 l3 = uint3(l2, 7);
    double3 d3 = asdouble(l3, l3);
    double4 d4 = asdouble(uint4(l3, 1), uint4(2, 3, 4, 5));
    uint4 a4;
    int4 b4;
    asuint(d4 + double4(d3, d2.x), a4, b4);
    asuint(1.5, a4.z, b4.w);
    Buf[i + 5] = a4.x ^ a4.z ^ (uint)b4.w;
    Buf[i + 6] = (uint)(d2.y + d3.z);
    Buf[i + 7] = high(d, i) + i;
}
