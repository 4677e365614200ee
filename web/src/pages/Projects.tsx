export const Projects = () => (
  <section>
    <h1>All projects</h1>
  </section>
);
