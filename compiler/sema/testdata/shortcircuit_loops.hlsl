// Short-circuit conditions with side effects inside loop conditions, do-while with
// continue, switch inside a loop using continue and break.
RWStructuredBuffer<uint> Out : register(u0);

bool probe(uint i) { Out[i] = 1; return i < 3; }

[shader("compute")] [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint i = 0;
    while (i < 8 && probe(i))
        i++;
    uint n = 0;
    do {
        n++;
        if (n == 2)
            continue;
        Out[n] = n;
    } while (n < 5 || probe(n));
    for (uint k = 0; k < 4; k++) {
        switch (k) {
        case 1:
            continue;
        case 2:
            Out[10] = k;
            break;
        default:
            Out[11] = k;
            break;
        }
    }
}
