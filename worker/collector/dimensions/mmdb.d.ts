/** The country database, a workerd Data module (config.capnp): its bytes. */
declare module "*.mmdb" {
  const bytes: ArrayBuffer;
  export default bytes;
}
