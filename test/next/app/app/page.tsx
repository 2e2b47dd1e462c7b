export default function Home() {
  return <p>home</p>;
}
