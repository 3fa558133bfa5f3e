// The `workerd` package ships no types.
declare module "workerd" {
  /** CommonJS module whose `default` is the absolute path of the workerd binary. */
  const workerd: { default: string; version: string; compatibilityDate: string };
  export default workerd;
}

