/* An honest HDF5 file written with a metadata cache image (a superblock extension
   message libhdf5 loads in place of the file's own headers): red team s34 RH8.
   Usage: cache_image OUT */
#include <hdf5.h>
#include <stdio.h>
int main(int argc, char **argv) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  H5AC_cache_image_config_t c = {H5AC__CURR_CACHE_IMAGE_CONFIG_VERSION, 1, 0, -1};
  if (H5Pset_mdc_image_config(fapl, &c) < 0) { printf("no cfg\n"); return 2; }
  hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (f < 0) return 3;
  hsize_t dims[1] = {4};
  hid_t s = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int x[4] = {1,2,3,4};
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
  H5Dclose(d); H5Fclose(f);
  return 0;
}
