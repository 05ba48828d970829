/* pikg_classes.h: the particle types of PIKG's gravity kernel
 * (pikg_gravity.pikg), for its C interface: float positions, masses,
 * accelerations and potentials, as dsl-examples/gravity.nbl has them. */
#include <pikg_vector.h>

typedef struct { pikg_f32vec pos; } EPI;
typedef struct { pikg_f32vec pos; float mass; } EPJ;
typedef struct { pikg_f32vec acc; float pot; } FORCE;
