export const Users = () => (
  <section>
    <h1>Users and roles</h1>
  </section>
);
